// Package pyrand is Python's random module as far as the Alibaba PAI v2020
// simulator uses it: the Mersenne Twister MT19937 (Matsumoto and
// Nishimura, ACM TOMACS 1998) seeded as random.seed(n) seeds it for an
// integer n, getrandbits, and random.shuffle, so that wb can draw the
// simulator's own sample of a job table. Everything else in wb draws from
// math/rand/v2.
package pyrand

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// MT is a Mersenne Twister in the state CPython's random.Random keeps.
type MT struct {
	mt  [n]uint32
	mti int
}

// New returns the generator random.seed(seed) makes: init_by_array with
// the seed's 32-bit words, least significant first (one word, 0, for 0).
func New(seed uint64) *MT {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &MT{}
	r.initByArray(key)
	return r
}

func (r *MT) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *MT) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is genrand_uint32: the next 32 bits.
func (r *MT) Uint32() uint32 {
	if r.mti >= n {
		var k int
		for k = 0; k < n-m; k++ {
			y := (r.mt[k] & upperMask) | (r.mt[k+1] & lowerMask)
			r.mt[k] = r.mt[k+m] ^ (y >> 1) ^ (y&1)*matrixA
		}
		for ; k < n-1; k++ {
			y := (r.mt[k] & upperMask) | (r.mt[k+1] & lowerMask)
			r.mt[k] = r.mt[k+(m-n)] ^ (y >> 1) ^ (y&1)*matrixA
		}
		y := (r.mt[n-1] & upperMask) | (r.mt[0] & lowerMask)
		r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ (y&1)*matrixA
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Getrandbits is random.getrandbits(k) for 1 ≤ k ≤ 32.
func (r *MT) Getrandbits(k int) uint32 { return r.Uint32() >> (32 - k) }

// Below is random._randbelow(n) for 1 ≤ n < 2^32: getrandbits of n's bit
// length, drawn again while not below n.
func (r *MT) Below(n int) int {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		if v := int(r.Getrandbits(k)); v < n {
			return v
		}
	}
}

// Shuffle is random.shuffle on a sequence of length len, swapping
// elements i and j with swap.
func (r *MT) Shuffle(length int, swap func(i, j int)) {
	for i := length - 1; i > 0; i-- {
		swap(i, r.Below(i+1))
	}
}
