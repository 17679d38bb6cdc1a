package dnn

import "fmt"

// This file holds the zoo's sequence models (BERT, GPT-2, the Transformer)
// and the rest of Gavel's job types (Narayanan et al., OSDI 2020): its
// translation Transformer, word language model, recommendation
// autoencoder, A3C agent and CycleGAN, each as the PyTorch code Gavel runs
// (github.com/stanford-futuredata/gavel, workloads/pytorch/) defines it.

// BERT's uncased vocabulary, position table and token types (Devlin et
// al., NAACL 2019; Hugging Face bert-base-uncased's config.json).
const (
	bertVocab      = 30522
	bertPositions  = 512
	bertTokenTypes = 2
)

// BERT builds a BERT encoder as Hugging Face's BertModel defines it, for
// sequences of seq tokens: word, position and token-type embeddings,
// summed and layer-normalised; layers post-norm encoder layers of width
// dim with heads heads, a GELU feed-forward network of 4×dim, and dropout
// 0.1; and the pooler (the first token through a dim→dim linear layer and
// tanh). The pre-training heads (masked LM, next sentence) are not part of
// it: this is the network fine-tuning trains, less its small task head.
// The position and token-type lookups read the input ids in place of the
// positions and segment ids, which does the same work.
func BERT(name string, layers, dim, heads, seq int) (*Network, error) {
	if seq > bertPositions {
		return nil, fmt.Errorf("%s: sequence of %d tokens longer than BERT's %d positions", name, seq, bertPositions)
	}
	b, x := NewBuilder(name, Shape{seq})
	c := TransformerConfig{Dim: dim, Heads: heads, FF: 4 * dim, Act: "gelu", Dropout: 0.1}
	h := b.Sum("embeddings.add",
		b.Embedding("embeddings.word", x, bertVocab, dim),
		b.Embedding("embeddings.position", x, bertPositions, dim),
		b.Embedding("embeddings.token_type", x, bertTokenTypes, dim))
	h = b.LayerNorm("embeddings.ln", h)
	h = b.Dropout("embeddings.dropout", h, c.Dropout)
	for i := range layers {
		h = b.EncoderLayer(fmt.Sprintf("encoder.%d.", i), h, c)
	}
	p := b.SelectToken("pooler.first", h, 0)
	p = b.Linear("pooler.dense", p, dim, true)
	b.Activation("pooler.tanh", p, "tanh")
	return b.Build()
}

// GPT-2's byte-pair vocabulary and context (Radford et al., 2019; Hugging
// Face gpt2's config.json).
const (
	gpt2Vocab     = 50257
	gpt2Positions = 1024
)

// GPT2 builds GPT-2 as Hugging Face's GPT2LMHeadModel defines it, for
// sequences of seq tokens: token and position embeddings, summed, with
// dropout 0.1; layers pre-norm decoder-only layers (causal self-attention,
// GELU feed-forward network of 4×dim); a final layer norm; and the
// language-model head, a projection onto the vocabulary tied to the token
// embedding (no parameters of its own).
func GPT2(name string, layers, dim, heads, seq int) (*Network, error) {
	if seq > gpt2Positions {
		return nil, fmt.Errorf("%s: sequence of %d tokens longer than GPT-2's %d positions", name, seq, gpt2Positions)
	}
	b, x := NewBuilder(name, Shape{seq})
	c := TransformerConfig{Dim: dim, Heads: heads, FF: 4 * dim, Act: "gelu", PreNorm: true, Causal: true, Dropout: 0.1}
	h := b.Sum("add", b.Embedding("wte", x, gpt2Vocab, dim), b.Embedding("wpe", x, gpt2Positions, dim))
	h = b.Dropout("drop", h, c.Dropout)
	for i := range layers {
		h = b.EncoderLayer(fmt.Sprintf("h.%d.", i), h, c)
	}
	h = b.LayerNorm("ln_f", h)
	b.TiedLinear("lm_head", h, gpt2Vocab, false)
	return b.Build()
}

// Seq2Seq configures an encoder-decoder Transformer for translation.
type Seq2Seq struct {
	// Layer configures every encoder and decoder layer (the decoder's
	// self-attention is causal whatever Layer.Causal says).
	Layer TransformerConfig
	// Layers is the number of encoder layers, and of decoder layers.
	Layers int
	// SrcVocab and TgtVocab are the vocabularies' sizes.
	SrcVocab, TgtVocab int
	// Shared uses one table for the source and target embeddings (and so
	// one vocabulary); the output projection always shares the target's.
	Shared bool
	// EmbedDropout puts Layer.Dropout after the embeddings' sums.
	EmbedDropout bool
	// Seq is the length of the source and of the target sequences.
	Seq int
}

// TranslationTransformer builds an encoder-decoder Transformer (Vaswani et
// al., NeurIPS 2017): token embeddings plus fixed sinusoidal position
// encodings (a frozen table lookup), Layers encoder layers, Layers decoder
// layers attending to the encoder's output, and the output projection
// onto the target vocabulary, tied to the target embedding. Source and
// target have one length, Seq; the network's input is the source's ids,
// which the target's lookups read too (the same work as reading the
// target's).
func TranslationTransformer(name string, s Seq2Seq) (*Network, error) {
	if s.Shared && s.SrcVocab != s.TgtVocab {
		return nil, fmt.Errorf("%s: shared embeddings want one vocabulary, got %d source and %d target tokens", name, s.SrcVocab, s.TgtVocab)
	}
	d := s.Layer.Dim
	b, x := NewBuilder(name, Shape{s.Seq})
	embed := func(prefix string, vocab int, table tableKind) T {
		h := b.Sum(prefix+"add", b.lookup(prefix+"embed", x, vocab, d, table), b.lookup(prefix+"position", x, s.Seq+1, d, frozenTable))
		if s.EmbedDropout && s.Layer.Dropout > 0 {
			h = b.Dropout(prefix+"dropout", h, s.Layer.Dropout)
		}
		return h
	}
	tgt := ownTable
	if s.Shared {
		tgt = tiedTable
	}
	mem := embed("encoder.", s.SrcVocab, ownTable)
	for i := range s.Layers {
		mem = b.EncoderLayer(fmt.Sprintf("encoder.layers.%d.", i), mem, s.Layer)
	}
	h := embed("decoder.", s.TgtVocab, tgt)
	for i := range s.Layers {
		h = b.DecoderLayer(fmt.Sprintf("decoder.layers.%d.", i), h, mem, s.Layer)
	}
	b.TiedLinear("generator", h, s.TgtVocab, false)
	return b.Build()
}

// transformerBase is the base Transformer of Vaswani et al. (2017, Table
// 3): 6 + 6 layers of width 512, 8 heads, feed-forward 2048, dropout 0.1,
// and WMT 2014 English-German's shared byte-pair vocabulary of about
// 37,000 tokens, one table for both embeddings and the output projection
// (section 3.4).
func transformerBase(seq int) (*Network, error) {
	return TranslationTransformer("transformer", Seq2Seq{
		Layer:    TransformerConfig{Dim: 512, Heads: 8, FF: 2048, Act: "relu", Dropout: 0.1},
		Layers:   6,
		SrcVocab: 37000, TgtVocab: 37000, Shared: true,
		EmbedDropout: true,
		Seq:          seq,
	})
}

// The vocabularies of Gavel's Multi30k data, multi30k.atok.low.pt, made by
// attention-is-all-you-need-pytorch's original preprocess.py from the
// tokenised, lower-cased English→German training set (29,000 pairs) with
// its defaults: separate vocabularies of the words seen more than 5 times,
// plus 4 special tokens. The file is not public; these sizes are
// estimates from Multi30k's word frequencies (torchtext keeps 5,893
// English and 7,853 German words seen twice or more), rounded to 100.
const (
	multi30kSrcVocab = 2900 // English
	multi30kTgtVocab = 3100 // German
)

// gavelTranslation is Gavel's translation job: the Transformer of
// attention-is-all-you-need-pytorch (Yu-Hsiang Huang) as Gavel's
// workloads/pytorch/translation/train.py runs it: d_model 512, 6 + 6
// layers, 8 heads of 64, d_inner 2048, dropout 0.1, post-norm layers (a
// layer norm after each residual sum, none at the end), linear layers with
// biases (the feed-forward network is two 1×1 Conv1d, the same work), no
// dropout on the embeddings; -proj_share_weight ties the output
// projection to the target embedding; -embs_share_weight is not given, so
// source and target embeddings are separate. The products with the
// padding masks after each sub-layer and the logits' scaling by 1/√512 are
// left out. Batches are padded to their longest sentence: seq tokens, BOS
// and EOS included (the zoo builds 32 at every batch; Multi30k's batches of
// 16–256 are padded to 23–31 on average: docs/gavel-workloads.md).
func gavelTranslation(seq int) (*Network, error) {
	return TranslationTransformer("transformer-translation", Seq2Seq{
		Layer:    TransformerConfig{Dim: 512, Heads: 8, FF: 2048, Act: "relu", Dropout: 0.1},
		Layers:   6,
		SrcVocab: multi30kSrcVocab, TgtVocab: multi30kTgtVocab,
		Seq: seq,
	})
}

// WordLanguageModel builds PyTorch's examples/word_language_model
// RNNModel with an LSTM, as Gavel's workloads/pytorch/language_modeling
// runs it: an embedding of emsize, dropout, layers LSTM layers of nhid,
// dropout, and a linear decoder onto the vocabulary, over bptt tokens. With
// tied, the decoder's weight is the embedding's (emsize must equal nhid)
// and only its bias is its own.
func WordLanguageModel(name string, vocab, emsize, nhid, layers, bptt int, tied bool) (*Network, error) {
	if tied && emsize != nhid {
		return nil, fmt.Errorf("%s: tied weights want emsize = nhid, got %d and %d", name, emsize, nhid)
	}
	const dropout = 0.2 // main.py's --dropout default
	b, x := NewBuilder(name, Shape{bptt})
	h := b.Embedding("encoder", x, vocab, emsize)
	h = b.Dropout("drop1", h, dropout)
	h = b.LSTM("rnn", h, nhid, layers)
	h = b.Dropout("drop2", h, dropout)
	if tied {
		h = b.TiedLinear("decoder", h, vocab, true)
	} else {
		h = b.Linear("decoder", h, vocab, true)
	}
	// main.py's criterion, nn.CrossEntropyLoss over the vocabulary: a log
	// softmax of every logit and the target's negative log-likelihood,
	// backward the softmax less the one-hot target. Over 33,278 words its
	// passes over the logits cost what a softmax's do, which the model
	// counts; the gather of one value per token is left out.
	b.Softmax("loss", h)
	n, err := b.Build()
	if err != nil {
		return nil, err
	}
	// Gavel's main.py batches WikiText-2 with a Dataset whose items are
	// read, in the training process, from the corpus held on the GPU: per
	// sample, two slices and two torch.cat with (empty) padding (data and
	// target), each cat a kernel launch; the loader's stack of the batch
	// is one more per batch, left out.
	n.HostOpsPerSample = 2
	return n, nil
}

// WikiText-2's vocabulary as the example's data.Corpus builds it (every
// word of the training, validation and test files, and <eos>).
const wikiText2Vocab = 33278

// Recoder builds Gavel's recommendation job: recoder's
// DynamicAutoencoder as workloads/pytorch/recommendation/train.py
// configures it (hidden_layers=[hidden], tanh, noise_prob 0.5, not
// constrained, dense embeddings), over users' interaction vectors of items
// items: L2 normalisation of each row, dropout as input noise, the encoder
// (items→hidden with bias), tanh, and the decoder (hidden→items with bias),
// whose logits go to a binary cross-entropy. Both of its weight matrices
// are embeddings of the items, gathered for the items of the batch
// (mini-batch negative sampling); this counts every item, the bound a
// large batch reaches, and leaves out the gathers' copies.
func Recoder(name string, items, hidden int) (*Network, error) {
	b, x := NewBuilder(name, Shape{items})
	h := b.Add("normalize", func(in []Shape) (Layer, error) {
		// Per value: square and accumulate, then scale (3 FLOPs), reading
		// x twice; backward: the row dot product and the correction.
		return &elementwise{op: OpNormalize, shape: in[0],
			fwdFlops: 3, fwdRead: 2, fwdWrite: 1, bwdFlops: 5, bwdRead: 4, bwdWrite: 1}, nil
	}, x)
	h = b.Dropout("noise", h, 0.5)
	h = b.Linear("encoder", h, hidden, true)
	h = b.Activation("tanh", h, "tanh")
	b.Linear("decoder", h, items, true)
	n, err := b.Build()
	if err != nil {
		return nil, err
	}
	// Gavel's train.py loads batches in the training process
	// (num_data_workers=0) and each step ends in loss.item(), so the
	// collation runs while the GPU waits: per batch, scipy's indexing of
	// the users' rows, np.unique of their items (negative sampling), and
	// the sparse batch built as torch.LongTensor of a list of two numpy
	// arrays, element by element. scripts/recoder_input.py times it on
	// synthetic MovieLens-20M (73 interactions a user): 14.4–17.6 µs a
	// sample at Gavel's batches 512–8,192, two seeds, PyTorch 1.13 on a
	// 2-core Intel Xeon VM (2026-11-29); their median.
	n.HostSecondsPerSample = recoderInputSeconds
	return n, nil
}

// recoderInputSeconds is the host's time per sample of recoder's input
// pipeline (see Recoder), measured; another host, Python or PyTorch takes
// its own.
const recoderInputSeconds = 15.7e-6

// ml20mItems is the number of items of MovieLens-20M after VAE-CF's
// preprocessing (Liang et al., WWW 2018, Table 1), which Gavel's
// scripts/ml-20m/preprocess.py adopts: ratings of 4 or more, users with 5
// or more of them.
const ml20mItems = 20108

// A3C builds the A3Clstm network of dgriff777/rl_a3c_pytorch, the one
// Gavel's workloads/pytorch/rl runs: on a 1×frame×frame grey frame, four
// convolutions with bias (32 5×5 padding 2, 32 5×5 padding 1, 64 4×4
// padding 1, 64 3×3 padding 1), each followed by 2×2 max pooling and ReLU;
// an LSTM cell of 512 on the flattened features (PyTorch's LSTMCell, one
// step: two bias vectors, as nn.LSTM); and the critic (512→1) and actor
// (512→actions) heads.
func A3C(name string, frame, actions int) (*Network, error) {
	b, x := NewBuilder(name, Shape{1, frame, frame})
	convs := []Conv{
		{Out: 32, Kernel: 5, Pad: 2, Bias: true},
		{Out: 32, Kernel: 5, Pad: 1, Bias: true},
		{Out: 64, Kernel: 4, Pad: 1, Bias: true},
		{Out: 64, Kernel: 3, Pad: 1, Bias: true},
	}
	h := x
	for i, c := range convs {
		h = b.Conv2D(fmt.Sprintf("conv%d", i+1), h, c)
		h = b.MaxPool(fmt.Sprintf("pool%d", i+1), h, 2, 2, 0)
		h = b.ReLU(fmt.Sprintf("relu%d", i+1), h)
	}
	h = b.Flatten("flatten", h)
	h = b.Reshape("step", h, Shape{1, int(h.Shape().Elems())})
	h = b.LSTM("lstm", h, 512, 1)
	h = b.Flatten("hx", h)
	b.Linear("critic_linear", h, 1, true)
	b.Linear("actor_linear", h, actions, true)
	return b.Build()
}

// CycleGAN builds the four networks of a CycleGAN (Zhu et al., ICCV 2017)
// as eriklindernoren/PyTorch-GAN's implementations/cyclegan defines them,
// which Gavel's workloads/pytorch/cyclegan runs: two ResNet generators
// (G_AB, G_BA: a 7×7 convolution of 64, two stride-2 3×3 down-samplings to
// 256 channels, resBlocks residual blocks, two nearest ×2 up-samplings each
// followed by a 3×3 convolution, a 7×7 convolution to 3 channels and tanh;
// instance normalisation without affine parameters and ReLU after every
// convolution but the last) and two 70×70 PatchGAN discriminators (D_A,
// D_B: 4×4 stride-2 convolutions of 64, 128, 256, 512 with instance
// normalisation but on the first, leaky ReLU 0.2, then a zero padding and
// a 4×4 convolution to 1 channel), on size×size RGB images. Reflection
// paddings are folded into their convolutions' padding; their copies are
// not counted. G_AB and D_A read the input image, G_BA reads G_AB's
// output and D_B reads G_BA's.
func CycleGAN(name string, size, resBlocks int) (*Network, error) {
	b, x := NewBuilder(name, Shape{3, size, size})
	fake := cycleGenerator(b, "G_AB.", x, resBlocks)
	back := cycleGenerator(b, "G_BA.", fake, resBlocks)
	patchDiscriminator(b, "D_A.", x)
	patchDiscriminator(b, "D_B.", back)
	return b.Build()
}

// cycleGenerator adds PyTorch-GAN's GeneratorResNet.
func cycleGenerator(b *Builder, p string, x T, resBlocks int) T {
	convIN := func(name string, x T, c Conv) T {
		c.Bias = true
		x = b.Conv2D(p+name, x, c)
		x = instanceNorm(b, p+name+".in", x)
		return b.ReLU(p+name+".relu", x)
	}
	h := convIN("conv_in", x, Conv{Out: 64, Kernel: 7, Pad: 3})
	h = convIN("down1", h, Conv{Out: 128, Kernel: 3, Stride: 2, Pad: 1})
	h = convIN("down2", h, Conv{Out: 256, Kernel: 3, Stride: 2, Pad: 1})
	for i := range resBlocks {
		r := fmt.Sprintf("res%d.", i)
		y := convIN(r+"conv1", h, Conv{Out: 256, Kernel: 3, Pad: 1})
		y = b.Conv2D(p+r+"conv2", y, Conv{Out: 256, Kernel: 3, Pad: 1, Bias: true})
		y = instanceNorm(b, p+r+"conv2.in", y)
		h = b.Sum(p+r+"add", h, y)
	}
	for i, out := range []int{128, 64} {
		u := fmt.Sprintf("up%d", i+1)
		h = upsample(b, p+u+".upsample", h, 2)
		h = convIN(u, h, Conv{Out: out, Kernel: 3, Pad: 1})
	}
	h = b.Conv2D(p+"conv_out", h, Conv{Out: 3, Kernel: 7, Pad: 3, Bias: true})
	return b.Activation(p+"tanh", h, "tanh")
}

// patchDiscriminator adds PyTorch-GAN's CycleGAN Discriminator.
func patchDiscriminator(b *Builder, p string, x T) T {
	h := x
	for i, out := range []int{64, 128, 256, 512} {
		n := fmt.Sprintf("block%d", i+1)
		h = b.Conv2D(p+n, h, Conv{Out: out, Kernel: 4, Stride: 2, Pad: 1, Bias: true})
		if i > 0 {
			h = instanceNorm(b, p+n+".in", h)
		}
		h = leakyReLU(b, p+n+".lrelu", h)
	}
	h = zeroPad(b, p+"pad", h, 1, 0, 1, 0)
	return b.Conv2D(p+"conv_out", h, Conv{Out: 1, Kernel: 4, Pad: 1, Bias: true})
}

// instanceNorm adds instance normalisation without affine parameters
// (PyTorch's InstanceNorm2d default), counted as BatchNorm is.
func instanceNorm(b *Builder, name string, x T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 3 {
			return nil, fmt.Errorf("instance norm wants a [C, H, W] input, got %v", s)
		}
		return &elementwise{op: OpInstanceNorm, shape: s,
			fwdFlops: 7, fwdRead: 2, fwdWrite: 1, bwdFlops: 10, bwdRead: 4, bwdWrite: 1}, nil
	}, x)
}

// leakyReLU adds a leaky ReLU: a comparison and a product per value, each
// way.
func leakyReLU(b *Builder, name string, x T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		return &elementwise{op: OpLeakyReLU, shape: s,
			fwdFlops: 2, fwdRead: 1, fwdWrite: 1, bwdFlops: 2, bwdRead: 2, bwdWrite: 1}, nil
	}, x)
}

// upsample adds nearest-neighbour up-sampling by f: [C, H, W] → [C, fH,
// fW]. Forward reads the input and writes f² times as much; backward sums
// each f×f block of the gradient (f² − 1 additions per input value).
func upsample(b *Builder, name string, x T, f int) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 3 || f <= 0 {
			return nil, fmt.Errorf("upsample by %d wants a [C, H, W] input, got %v", f, s)
		}
		return &resize{op: OpUpsample, in: s, out: Shape{s[0], f * s[1], f * s[2]},
			key: fmt.Sprintf("upsample in=%v f=%d", s, f), fold: float64(f * f)}, nil
	}, x)
}

// zeroPad adds zero padding of [C, H, W] by left, right, top and bottom
// columns and rows. Forward copies the input into the padded output;
// backward copies the gradient's interior back.
func zeroPad(b *Builder, name string, x T, left, right, top, bottom int) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 3 || left < 0 || right < 0 || top < 0 || bottom < 0 {
			return nil, fmt.Errorf("zero padding %d,%d,%d,%d of %v: want a [C, H, W] input and paddings ≥ 0", left, right, top, bottom, s)
		}
		return &resize{op: OpPad, in: s, out: Shape{s[0], s[1] + top + bottom, s[2] + left + right},
			key: fmt.Sprintf("pad in=%v l=%d r=%d t=%d b=%d", s, left, right, top, bottom), fold: 1}, nil
	}, x)
}

// nlpZoo lists the sequence models of the zoo and the rest of Gavel's job
// types.
func nlpZoo() []ZooEntry {
	return []ZooEntry{
		{
			Name:        "bert-base",
			Description: "BERT-base, uncased, as Hugging Face's BertModel with its pooler (Devlin et al., NAACL 2019): 12 layers, 768 wide, 12 heads",
			Input:       "128 WordPiece tokens (vocabulary 30,522)",
			Batch:       32, // Devlin et al.'s fine-tuning batch (sec. A.3)
			Build:       func() (*Network, error) { return BERT("bert-base", 12, 768, 12, 128) },
		},
		{
			Name:        "gpt2",
			Description: "GPT-2 small as Hugging Face's GPT2LMHeadModel (Radford et al., 2019): 12 layers, 768 wide, 12 heads, LM head tied to the token embedding",
			Input:       "1024 byte-pair tokens (vocabulary 50,257)",
			Batch:       8,
			Build:       func() (*Network, error) { return GPT2("gpt2", 12, 768, 12, 1024) },
		},
		{
			Name:        "transformer",
			Description: "Transformer base (Vaswani et al., NeurIPS 2017, Table 3): 6+6 layers, 512 wide, 8 heads, feed-forward 2048, one 37,000-token table for both embeddings and the output projection",
			Input:       "32 source and 32 target byte-pair tokens",
			Batch:       96, // about 3,100 tokens a side per GPU: the paper's 25,000 over 8 GPUs
			Build:       func() (*Network, error) { return transformerBase(32) },
		},
		{
			Name:        "transformer-translation",
			Description: "Gavel's translation job: attention-is-all-you-need-pytorch's Transformer (512 wide, 6+6 layers, 8 heads, d_inner 2048, -proj_share_weight) on Multi30k English→German, separate vocabularies of about 2,900 and 3,100 words (estimated)",
			Input:       "32 source and 32 target words, BOS and EOS included, at every batch (Gavel's loader pads a batch to its longest sentence: 23–31 words on average at its batches of 16–256; docs/gavel-workloads.md)",
			Batch:       64, // train.py's default; Gavel's traces use 16 to 256
			Build:       func() (*Network, error) { return gavelTranslation(32) },
		},
		{
			Name:        "lm",
			Description: "Gavel's language-modelling job: PyTorch's word_language_model with its defaults, a 2-layer LSTM of 200 on 200-wide embeddings, untied, on WikiText-2 (vocabulary 33,278)",
			Input:       "35 tokens (bptt)",
			Batch:       20, // main.py's default; Gavel's traces use 5 to 80
			Build: func() (*Network, error) {
				return WordLanguageModel("lm", wikiText2Vocab, 200, 200, 2, 35, false)
			},
		},
		{
			Name:        "recommendation",
			Description: "Gavel's recommendation job: recoder's DynamicAutoencoder (one hidden layer of 200, tanh, input dropout 0.5) on MovieLens-20M, every item counted; its batches collated on the host, 15.7 µs a sample (measured: scripts/recoder_input.py)",
			Input:       "a user's interactions with 20,108 items",
			Batch:       2048, // train.py's default; Gavel's traces use 512 to 8192
			Build:       func() (*Network, error) { return Recoder("recommendation", ml20mItems, 200) },
		},
		{
			Name:        "a3c",
			Description: "Gavel's reinforcement-learning job: dgriff777/rl_a3c_pytorch's A3Clstm on PongDeterministic-v4 (6 actions), 4 workers; one worker's update runs 20 steps of batch 1 forward and back",
			Input:       "1×80×80 grey frames",
			Batch:       20, // --num-steps: an update's rollout, as a batch
			Build: func() (*Network, error) {
				n, err := A3C("a3c", 80, 6)
				if err == nil {
					n.Untimed = "the Atari emulator's steps on the CPU between the network's small passes (Gavel measured this job at 1/17 to 1/29 of the rate wb predicts on K80, P100 and V100: wb predict --validate gavel, with and without --gpu-model)"
				}
				return n, err
			},
		},
		{
			Name:        "cyclegan",
			Description: "Gavel's CycleGAN job: PyTorch-GAN's CycleGAN on monet2photo, two ResNet-9 generators and two PatchGAN discriminators; at Gavel's batch of 1, an iteration runs each network 3 times forward and back, the work of this network at batch 3",
			Input:       "3×256×256 images",
			Batch:       3, // 3 passes of Gavel's batch of 1
			Build: func() (*Network, error) {
				n, err := CycleGAN("cyclegan", 256, 9)
				if err == nil {
					n.Calls = 3 // each network called 3 times a step, at batch 1
				}
				return n, err
			},
		},
	}
}
