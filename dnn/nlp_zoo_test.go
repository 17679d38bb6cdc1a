package dnn

import (
	"strings"
	"testing"
)

// TestNLPZooParams checks the models' parameters against published counts.
// Where a reference implementation's exact count is known the model must
// match it; the papers' rounded figures must be met within 1%, but for
// the Transformer (see below).
func TestNLPZooParams(t *testing.T) {
	tests := []struct {
		model  string
		exact  int64   // the reference implementation's count; 0: none
		paper  float64 // a published, rounded figure
		tol    float64 // relative tolerance against paper
		source string
	}{
		// Hugging Face bert-base-uncased (BertModel with pooler):
		// 109,482,240; Devlin et al. 2019, sec. 3: "BERT-BASE ... Total
		// Parameters=110M".
		{"bert-base", 109_482_240, 110e6, 0.01, "HF bert-base-uncased; Devlin et al. 2019"},
		// Hugging Face gpt2 (GPT2LMHeadModel, tied head): 124,439,808;
		// the 124M of OpenAI's gpt-2 repository.
		{"gpt2", 124_439_808, 124e6, 0.01, "HF gpt2; openai/gpt-2 \"124M\""},
		// Vaswani et al. 2017, Table 3: base model 65 × 10⁶. The layers the
		// paper describes, with one 37,000-token table for both embeddings
		// and the output projection (sec. 3.4), count 63,082,496: 2.9% under
		// the paper's figure, whose rounding or vocabulary the paper does not
		// detail; hence 3%.
		{"transformer", 63_082_496, 65e6, 0.03, "Vaswani et al. 2017, Table 3"},
		// PyTorch word_language_model, LSTM, defaults, WikiText-2:
		// embedding 33,278×200, two layers of 4·200·400 + 8·200, decoder
		// 200×33,278 + 33,278 (nn.Module parameter count, no published
		// figure).
		{"lm", 33278*200 + 2*(4*200*400+8*200) + 200*33278 + 33278, 0, 0, "PyTorch formula"},
		// recoder DynamicAutoencoder([200]) on 20,108 items: two
		// 20,108×200 embeddings, a bias of 200 and one of 20,108.
		{"recommendation", 2*20108*200 + 200 + 20108, 0, 0, "PyTorch formula"},
		// rl_a3c_pytorch A3Clstm: convolutions 832 + 25,632 + 32,832 +
		// 36,928, LSTMCell(1024, 512) 3,149,824, critic 513, actor 3,078.
		{"a3c", 832 + 25632 + 32832 + 36928 + 3149824 + 513 + 3078, 0, 0, "PyTorch formula"},
		// CycleGAN (junyanz/pytorch-CycleGAN-and-pix2pix prints "Total
		// number of parameters : 11.378 M" per ResNet-9 generator and
		// "2.765 M" per PatchGAN discriminator): 2 of each.
		{"cyclegan", 28_285_832, 2*11.378e6 + 2*2.765e6, 0.001, "CycleGAN repository's printed counts"},
	}
	for _, tt := range tests {
		n, err := Model(tt.model)
		if err != nil {
			t.Fatal(err)
		}
		p := n.Params()
		if tt.exact != 0 && p != tt.exact {
			t.Errorf("%s: %d parameters, want %d (%s)", tt.model, p, tt.exact, tt.source)
		}
		if tt.paper != 0 && !within(float64(p), tt.paper, tt.tol) {
			t.Errorf("%s: %d parameters, published %.4g (±%g, %s)", tt.model, p, tt.paper, tt.tol, tt.source)
		}
	}
}

// TestCycleGANParts checks each CycleGAN network against the CycleGAN
// repository's printed counts (11.378 M per generator, 2.765 M per
// discriminator, rounded to 1,000).
func TestCycleGANParts(t *testing.T) {
	n, err := Model("cyclegan")
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]int64{}
	for _, nd := range n.Nodes {
		parts[strings.SplitN(nd.Name, ".", 2)[0]] += nd.Layer.Params()
	}
	for part, want := range map[string]float64{"G_AB": 11.378e6, "G_BA": 11.378e6, "D_A": 2.765e6, "D_B": 2.765e6} {
		if got := float64(parts[part]); got < want-500 || got > want+500 {
			t.Errorf("%s: %d parameters, want %.4g M ± 500", part, parts[part], want/1e6)
		}
	}
	if out := n.Output().String(); out != "[1×16×16]" {
		t.Errorf("discriminator output %s, want PyTorch-GAN's 1×16×16 patches", out)
	}
}

// TestNLPZooBuilds builds every model of the file and checks that each
// does work in every pass at its default batch.
func TestNLPZooBuilds(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range nlpZoo() {
		if seen[e.Name] {
			t.Errorf("%s listed twice", e.Name)
		}
		seen[e.Name] = true
		if e.Description == "" || e.Input == "" || e.Batch <= 0 {
			t.Errorf("%s: incomplete entry %+v", e.Name, e)
		}
		n, err := e.Build()
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if n.Name != e.Name {
			t.Errorf("%s builds a network named %s", e.Name, n.Name)
		}
		for _, p := range Passes {
			w := n.Work(e.Batch, p, FP32)
			if w.FLOPs <= 0 || w.Bytes() <= 0 {
				t.Errorf("%s %v: %+v, want positive work", e.Name, p, w)
			}
		}
		if n.MACs() <= 0 {
			t.Errorf("%s: no matrix work", e.Name)
		}
	}
	for _, name := range []string{"bert-base", "gpt2", "transformer", "transformer-translation", "lm", "recommendation", "a3c", "cyclegan"} {
		if !seen[name] {
			t.Errorf("%s missing from the zoo", name)
		}
	}
}

// TestNLPZooShapes checks a few outputs that pin the models' wiring.
func TestNLPZooShapes(t *testing.T) {
	for model, want := range map[string]string{
		"bert-base":               "[768]",        // the pooler
		"gpt2":                    "[1024×50257]", // logits per position
		"transformer":             "[32×37000]",   // target logits
		"transformer-translation": "[32×3100]",    // German logits
		"lm":                      "[35×33278]",   // logits per step
		"recommendation":          "[20108]",      // one logit per item
		"a3c":                     "[6]",          // the actor's, added last
		"cyclegan":                "[1×16×16]",    // D_B's patches
	} {
		n, err := Model(model)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Output().String(); got != want {
			t.Errorf("%s: output %s, want %s", model, got, want)
		}
	}
	// A3C's flattened features are the 1,024 inputs of its LSTM cell.
	n, _ := Model("a3c")
	for _, nd := range n.Nodes {
		if nd.Name == "lstm" && nd.Layer.Key() != "lstm in=[1×1024] hidden=512 layers=1" {
			t.Errorf("a3c lstm: %s", nd.Layer.Key())
		}
	}
}

func TestNLPModelErrors(t *testing.T) {
	_, err := BERT("b", 12, 768, 12, 513)
	if err == nil || !strings.Contains(err.Error(), "longer than BERT's 512 positions") {
		t.Errorf("BERT at 513 tokens: %v", err)
	}
	_, err = GPT2("g", 12, 768, 12, 2048)
	if err == nil || !strings.Contains(err.Error(), "longer than GPT-2's 1024 positions") {
		t.Errorf("GPT-2 at 2048 tokens: %v", err)
	}
	_, err = TranslationTransformer("t", Seq2Seq{Layer: TransformerConfig{Dim: 8, Heads: 2, FF: 16, Act: "relu"},
		Layers: 1, SrcVocab: 10, TgtVocab: 12, Shared: true, Seq: 4})
	if err == nil || !strings.Contains(err.Error(), "shared embeddings want one vocabulary") {
		t.Errorf("shared embeddings of two vocabularies: %v", err)
	}
	_, err = WordLanguageModel("lm", 100, 200, 300, 2, 35, true)
	if err == nil || !strings.Contains(err.Error(), "tied weights want emsize = nhid") {
		t.Errorf("tied LM of two widths: %v", err)
	}
	// Heads that do not divide the width surface as the layers' errors.
	_, err = BERT("b", 1, 100, 12, 8)
	if err == nil || !strings.Contains(err.Error(), "12 heads do not divide width 100") {
		t.Errorf("BERT with 12 heads of width 100: %v", err)
	}
}

// TestTiedLM checks the word language model with tied weights: the
// decoder keeps only its bias.
func TestTiedLM(t *testing.T) {
	untied, err := WordLanguageModel("lm", wikiText2Vocab, 200, 200, 2, 35, false)
	if err != nil {
		t.Fatal(err)
	}
	tied, err := WordLanguageModel("lm", wikiText2Vocab, 200, 200, 2, 35, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := untied.Params() - tied.Params(); d != 200*wikiText2Vocab {
		t.Errorf("tying saved %d parameters, want %d", d, 200*wikiText2Vocab)
	}
	if untied.Work(20, Forward, FP32) != tied.Work(20, Forward, FP32) {
		t.Errorf("tying changed the forward work")
	}
	// the criterion: a softmax over every logit, the last layer
	last := untied.Nodes[len(untied.Nodes)-1]
	if last.Name != "loss" || last.Layer.Op() != OpSoftmax || last.Layer.Out().String() != "[35×33278]" {
		t.Errorf("the last layer is %s (%s, %s), want the loss: a softmax over [35×33278]", last.Name, last.Layer.Op(), last.Layer.Out())
	}
}
