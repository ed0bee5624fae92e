"""Notebook 09's lesson: the "it" data, the block against torch's own layer, training, the shipped
checkpoint, resolve, and the messages for sentences the model cannot read."""
import html
import json
from pathlib import Path

import pytest
import torch

from attnlab.lessons import nb09_transformer_block as lesson
from attnlab.lessons.nb09_transformer_block import data, live, training
from attnlab.lessons.nb09_transformer_block.model import CHECKPOINT, RESULTS, ItResolver

NOUNS = set(lesson.VOCAB["animals"]) | set(lesson.VOCAB["objects"])


def parts(sentence):
    """(animal, object, the adjective after "it was") of a generated sentence."""
    words = sentence.split()
    animal = next(w for w in words if w in lesson.VOCAB["animals"])
    obj = next(w for w in words if w in lesson.VOCAB["objects"])
    after = words[words.index("it") + 2:]
    adjective = next(w for w in after if w in lesson.VOCAB["animal_adjectives"] + lesson.VOCAB["object_adjectives"])
    return animal, obj, adjective


# ---- data -------------------------------------------------------------------------------------

def test_vocab_has_the_design_kinds_and_no_word_twice():
    for kind in ("animals", "objects", "animal_adjectives", "object_adjectives"):
        assert lesson.VOCAB[kind]
    words = [w for ws in lesson.VOCAB.values() for w in ws]
    assert len(words) == len(set(words))
    assert all(w == w.lower() and " " not in w for w in words)


@pytest.mark.parametrize("split", ["train", "test"])
def test_every_example_is_lowercase_known_words_and_its_referent_follows_the_adjective(split):
    pairs = lesson.examples(split)
    assert len(pairs) == data.SPLIT_SIZES[split]
    for sentence, referent in pairs:
        assert sentence == " ".join(sentence.split()) and sentence == sentence.lower()
        assert data.words_of(sentence) == sentence.split()
        animal, obj, adjective = parts(sentence)
        expected = animal if adjective in lesson.VOCAB["animal_adjectives"] else obj
        assert referent == expected, sentence
        assert sentence.split().count(referent) == 1


def test_seed_004_sentences_are_written_as_the_seed_writes_them():
    s = data.sentence("active", "cat", "milk", "drink", "sweet")
    assert s == "the cat drank the milk because it was sweet"
    assert data.referent("sweet", "cat", "milk") == "milk" and data.referent("hungry", "cat", "milk") == "cat"


def test_examples_are_deterministic_and_not_shared_between_calls():
    a = lesson.examples("train")
    a.append(("junk", "junk"))
    assert lesson.examples("train")[-1] != ("junk", "junk")
    assert data.generate(50, split="test", seed=3) == data.generate(50, split="test", seed=3)
    assert data.generate(50, split="test", seed=3) != data.generate(50, split="test", seed=4)


def test_test_split_holds_out_nouns_and_pairings_that_training_never_shows():
    train, test = lesson.examples("train"), lesson.examples("test")
    train_words = {w for s, _ in train for w in s.split()}
    assert not set(lesson.HELD_OUT_NOUNS) & train_words
    train_pairs = set()
    for s, r in train:
        words = s.split()
        _, _, adjective = parts(s)
        train_pairs.add((adjective, r))
        train_pairs |= {(a, n) for a, n in zip(words, words[1:]) if n in NOUNS}   # "the sleepy cat"
    assert not train_pairs & lesson.HELD_OUT_PAIRS
    for s, r in test:        # every test sentence has something training never showed
        animal, obj, adjective = parts(s)
        assert animal in lesson.HELD_OUT_NOUNS or obj in lesson.HELD_OUT_NOUNS or (adjective, r) in lesson.HELD_OUT_PAIRS
    assert not {s for s, _ in train} & {s for s, _ in test}
    # both kinds of held-out test, and both referent kinds, in numbers that measure something
    unseen_noun = sum(any(w in lesson.HELD_OUT_NOUNS for w in s.split()) for s, _ in test)
    assert 200 < unseen_noun < 900
    assert 300 < sum(r in lesson.VOCAB["animals"] for _, r in test) < 700


def test_every_template_appears_in_both_splits():
    for split in ("train", "test"):
        sentences = [s for s, _ in lesson.examples(split)]
        assert any(s.startswith("because it") for s in sentences)
        assert any(" by the " in s for s in sentences)
        assert any(" never " in s for s in sentences)
        assert any(" and then it " in s for s in sentences)


# ---- the block against torch's own layer ----------------------------------------------------------

@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
def test_block_equals_torch_transformer_encoder_layer_with_copied_weights(norm_first, dtype, tol):
    g = torch.Generator().manual_seed(1)
    block = lesson.TransformerBlock(16, 4, 24, norm_first=norm_first).to(dtype).eval()
    with torch.no_grad():                  # random biases and norms too, so none of them can be dropped unseen
        for p in block.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=dtype) * 0.5 + (1.0 if p.dim() == 1 else 0.0))
    reference = lesson.torch_layer(block)
    assert not reference.training and reference.norm_first == norm_first
    X = torch.randn(3, 6, 16, generator=g, dtype=dtype)
    with torch.no_grad():
        torch.testing.assert_close(block(X), reference(X), atol=tol, rtol=0)
        valid_lens = torch.tensor([6, 4, 1])
        padding = torch.arange(6)[None] >= valid_lens[:, None]         # torch: True = padding
        mine, theirs = block(X, valid_lens), reference(X, src_key_padding_mask=padding)
        torch.testing.assert_close(mine[~padding], theirs[~padding], atol=tol, rtol=0)
        # the mask matters: without it the short sequences' rows would differ
        assert (block(X)[~padding] - mine[~padding]).abs().max() > 1e-3


def test_block_with_one_word_and_one_head():
    block = lesson.TransformerBlock(8, 1, 8).double().eval()
    X = torch.randn(2, 1, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(block(X), lesson.torch_layer(block)(X), atol=1e-12, rtol=0)


def test_ablated_blocks_differ_from_the_full_block_and_refuse_a_torch_twin():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(2, 5, 16, generator=g)
    full = lesson.TransformerBlock(16, 2, 32).eval()
    for kw in ({"residual": False}, {"ffn": False}):
        ablated = lesson.TransformerBlock(16, 2, 32, **kw).eval()
        ablated.load_state_dict(full.state_dict(), strict=False)
        assert (ablated(X) - full(X)).abs().max() > 1e-3
        with pytest.raises(ValueError, match=r"block: expected a full block with biases"):
            lesson.torch_layer(ablated)


def test_positions_matter_and_without_them_self_attention_is_permutation_equivariant():
    ids, valid_lens, it_pos = data.encode(["the cat drank the milk because it was hungry"])
    perm = torch.tensor([4, 1, 2, 3, 0, 5, 6, 7, 8])                # swap cat's "the" and milk
    for positions, equal in ((False, True), (True, False)):
        model = ItResolver(positions=positions, seed=3).eval()
        with torch.no_grad():
            a = model(ids, valid_lens, it_pos)
            b = model(ids[:, perm], valid_lens, it_pos)
        assert torch.allclose(a[:, perm], b, atol=1e-6) == equal


def test_model_init_does_not_touch_the_global_generator():
    state = torch.random.get_rng_state()
    a = ItResolver(seed=5)
    assert torch.equal(torch.random.get_rng_state(), state)
    b = ItResolver(seed=5)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


# ---- training ----------------------------------------------------------------------------------

def test_training_reaches_the_target_on_a_small_budget():
    # A third of the shipped 300 steps (which reach 0.999, see test_shipped_model_...): already well past chance.
    model, history, _ = training.train(100, eval_every=10 ** 9)
    assert history["loss"][-1] < history["loss"][0] / 4
    assert training.accuracy(model, "test") >= 0.8 and training.accuracy(model, "train") >= 0.8
    assert not model.training


def test_training_is_deterministic_and_yields_what_the_trainer_draws():
    rows_a = list(zip(range(6), training.run(6)))
    rows_b = list(zip(range(6), training.run(6)))
    assert [r["loss"] for _, r in rows_a] == [r["loss"] for _, r in rows_b]
    for _, row in rows_a:
        assert {"loss", "accuracy", "test accuracy", "model"} <= set(row)
        assert 0 <= row["accuracy"] <= 1


def test_run_returns_the_model_as_the_generator_value():
    gen = training.run(2, eval_every=1)
    next(gen), next(gen)
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert isinstance(stop.value.value, ItResolver)


# ---- the shipped checkpoint -----------------------------------------------------------------------

def test_checkpoint_is_small_and_loads_in_eval_mode():
    assert CHECKPOINT.stat().st_size < 1_000_000
    model = lesson.pretrained()
    assert isinstance(model, ItResolver) and not model.training


def test_shipped_model_reaches_the_target_and_matches_its_recorded_numbers():
    model, measured = lesson.pretrained(), json.loads(RESULTS.read_text())
    test_acc, train_acc = lesson.accuracy(model, "test"), lesson.accuracy(model, "train")
    assert test_acc >= 0.95
    assert measured["ablations"]["full model"]["test"] == test_acc
    assert measured["ablations"]["full model"]["train"] == train_acc
    assert torch.allclose(lesson.head_accuracy(model), torch.tensor(measured["head accuracy"], dtype=torch.float64))
    assert set(training.ABLATIONS) <= set(measured["ablations"])


def test_the_package_ships_the_checkpoint_and_its_numbers():
    """hatchling ships every file git tracks under attnlab/ (tests/serving/test_packaging.py checks the wheel):
    the checkpoint and its results must be tracked, not ignored."""
    import subprocess
    from pathlib import Path
    root = Path(__file__).parents[2]
    tracked = subprocess.run(["git", "ls-files", "attnlab"], cwd=root, check=True, capture_output=True,
                             text=True).stdout.split()
    for path in (CHECKPOINT, RESULTS):
        assert path.relative_to(root).as_posix() in tracked, path


# ---- resolve --------------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence,referent", [
    ("the cat drank the milk because it was sweet", "milk"),
    ("the cat drank the milk because it was hungry", "cat"),
    ("the milk was drunk by the cat because it was cold", "milk"),
    ("because it was tired the fox carried the basket", "fox"),        # two held-out nouns
])
def test_resolve_finds_the_referent(sentence, referent):
    r = lesson.resolve(lesson.pretrained(), sentence)
    words = sentence.split()
    assert r.referent == referent and r.words == words
    assert r.attention.shape == (2, 4, len(words))
    torch.testing.assert_close(r.attention.sum(-1), torch.ones(2, 4))
    torch.testing.assert_close(r.pointer, r.attention[-1].mean(0))
    assert words[int(r.pointer.argmax())] == referent


def test_resolve_reads_typed_text_leniently_and_leaves_the_model_mode_alone():
    model = lesson.pretrained().train()
    r = lesson.resolve(model, "  The cat  drank the MILK because it was sweet. ")
    assert r.referent == "milk" and model.training


@pytest.mark.parametrize("sentence,match", [
    ("the cat drank the lemonade because it was sweet", r"unknown word 'lemonade'; the model knows only these kinds of words: animals \(cat"),
    ("the zebra ate the kiwi because it was hungry", r"unknown word 'zebra', 'kiwi'"),
    ("import os", r"unknown word 'import', 'os'"),
    ("", r"sentence: expected some words, got an empty sentence"),
    ("the cat drank the milk", r"expected the word 'it' exactly once, got it 0 times"),
    ("it was it", r"expected the word 'it' exactly once, got it 2 times"),
    (" ".join(["the cat drank the milk because it was sweet"] * 3).replace(" it ", " the ", 2),
     r"sentence: expected at most 24 words, got 27"),
])
def test_bad_sentences_get_a_message_naming_the_problem(sentence, match):
    with pytest.raises(ValueError, match=match):
        lesson.resolve(lesson.pretrained(), sentence)


def test_bad_arguments():
    with pytest.raises(TypeError, match=r"sentence: expected a str, got int"):
        lesson.resolve(lesson.pretrained(), 3)
    with pytest.raises(TypeError, match=r"model: expected an ItResolver \(e.g. pretrained\(\)\), got str"):
        lesson.resolve("model", "the cat drank the milk because it was sweet")
    with pytest.raises(ValueError, match=r"split: expected 'train' or 'test', got 'dev'"):
        lesson.examples("dev")
    with pytest.raises(ValueError, match=r"n: expected an int >= 0, got -1"):
        data.generate(-1)
    with pytest.raises(TypeError, match=r"n: expected an int, got float"):          # a wrong type (docs/api.md)
        data.generate(2.5)
    with pytest.raises(TypeError, match=r"split: expected 'train' or 'test', got 3"):
        lesson.examples(3)


# ---- widgets ---------------------------------------------------------------------------------------

def test_explorer_shows_a_message_not_an_error_for_an_unknown_word():
    explorer = lesson.play()
    explorer.sentence.value = "the cat drank the lemonade because it was sweet"
    shown = html.unescape(explorer.text.value)
    assert "Not accepted: unknown word 'lemonade'" in shown
    assert "only these kinds of words:\n  animals: cat, dog" in shown and "object adjectives: sweet" in shown
    assert explorer.error.value == "" and explorer.note.get_visible()
    assert explorer.title.get_text() == "shipped model: no answer for this sentence"   # not the last referent
    explorer.sentence.value = "the milk was drunk by the cat because it was hungry"
    assert "refers to: cat" in explorer.text.value and not explorer.note.get_visible()
    assert explorer.title.get_text() == "shipped model: “it” refers to cat"


def test_trainer_trains_and_hands_its_model_to_the_explorer():
    explorer = lesson.play()
    t = lesson.play_trainer(explorer=explorer, steps=20)
    t.controls["model"].value = "one head"
    model = t.train()
    assert isinstance(model, ItResolver) and model.config["num_heads"] == 1
    assert len(t.history["loss"]) == 20 and len(t.history["test accuracy"]) == 20
    assert "Done: 20 steps" in t.status.value and "test accuracy <b>" in t.status.value
    assert explorer.menu.value == "yours: one head, 20 steps" and explorer.controls["model"] is explorer.menu
    assert f"The explorer {explorer_side_of_the_trainer()} now shows" in t.status.value


def explorer_side_of_the_trainer():
    """Where notebook 09 shows the explorer (the cell that displays it, the Play cell) relative to the Train
    button's cell."""
    notebook = Path(__file__).resolve().parents[2] / "notebooks" / "09_transformer_block.ipynb"
    code = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    trainer_at = next(i for i, s in enumerate(code) if "lesson.play_trainer(" in s)
    shown_at = next(i for i, s in enumerate(code) if s.split("#")[0].strip().splitlines()[-1:] == ["explorer"])
    return "below" if shown_at > trainer_at else "above"


def test_play_is_a_new_explorer_panel_of_the_shipped_model_and_the_trainer_feeds_it():
    from attnlab.ui.panels import Panel
    sweet = "the cat drank the milk because it was sweet"
    explorer = lesson.play(text=sweet)
    assert isinstance(explorer, Panel) and type(explorer) is live.Explorer and explorer.sentence.value == sweet
    assert "refers to: milk" in explorer.text.value and list(explorer.models) == ["shipped"]
    assert lesson.play() is not explorer and lesson.play().sentence.value == live.EXAMPLE
    with pytest.raises(TypeError, match="positional"):
        lesson.play(sweet)
    with pytest.raises(TypeError, match="text: expected a str, got int"):
        lesson.play(text=3)
    with pytest.raises(TypeError, match="explorer: expected the Explorer, got str"):
        lesson.play_trainer(explorer="the cat")
    with pytest.raises(TypeError, match="positional"):
        lesson.play_trainer(explorer)


def test_a_typed_sentence_is_checked_once_on_its_way_to_the_figure(monkeypatch):
    """The explorer reads the typed words once (data.words_of) and calls no checked function after that."""
    explorer = lesson.play()
    calls = []
    real = data.words_of
    monkeypatch.setattr(data, "words_of", lambda s: calls.append(s) or real(s))
    monkeypatch.setattr(live, "checks", None)                              # nothing in live checks again
    explorer.sentence.value = "the cat drank the milk because it was sweet"
    assert calls == ["the cat drank the milk because it was sweet"] and "refers to: milk" in explorer.text.value