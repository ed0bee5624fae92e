"""The "it" task of notebook 09: generated sentences where an adjective's kind decides what "it" is.

"the cat drank the milk because it was hungry" -> cat (an animal adjective: the animal);
"the cat drank the milk because it was sweet"  -> milk (an object adjective: the object).
Seed 004 asks the question with two sentences; here a generator writes thousands, in several
templates (active, passive, the "because" clause first, distractor words), all seeded.

The test split measures generalisation, not memory: it holds out nouns (HELD_OUT_NOUNS never appear
in training) and adjective-noun pairings (HELD_OUT_PAIRS: each word is seen in training, never together).
"""
import random
import string

from ...core import checks
from ...i18n import N_, explain

__all__ = [
    "VOCAB", "KIND_NAMES", "WORDS", "KIND_OF", "PAD", "INDEX", "MAX_WORDS", "HELD_OUT_NOUNS", "SPLIT_SEED",
    "TEMPLATES", "HELD_OUT_PAIRS", "sentence", "referent", "generate", "SPLIT_SIZES", "examples", "words_of",
    "sentence_problem", "encode"
]

# Objects come in two groups, so verbs and adjectives fit them ("drank the milk", "chased the ball").
_FOOD = ["milk", "water", "juice", "tea", "soup", "cake", "apple", "bread", "cheese", "pie"]
_THINGS = ["ball", "box", "blanket", "hat", "toy", "rope", "shoe", "sock", "stick", "basket"]
_FOOD_ADJECTIVES = ["sweet", "sour", "salty", "fresh", "cold", "spicy"]
_THING_ADJECTIVES = ["shiny", "soft", "heavy", "round", "new", "dirty"]
# verb: (past, past participle, object group)
_VERBS = {
    "drink": ("drank", "drunk", "food"), "eat": ("ate", "eaten", "food"), "smell": ("smelled", "smelled", "food"),
    "lick": ("licked", "licked", "food"), "drop": ("dropped", "dropped", "any"),
    "chase": ("chased", "chased", "things"), "carry": ("carried", "carried", "things"),
    "push": ("pushed", "pushed", "things"), "bite": ("bit", "bitten", "things"),
    "like": ("liked", "liked", "any"), "want": ("wanted", "wanted", "any"), "find": ("found", "found", "any"),
}

VOCAB = {
    "animals": ["cat", "dog", "horse", "cow", "goat", "sheep", "pig", "duck", "mouse", "rabbit",
                "fox", "owl", "bear", "wolf"],
    "objects": _FOOD + _THINGS,
    "animal_adjectives": ["hungry", "thirsty", "tired", "sleepy", "happy", "curious", "scared", "angry",
                          "bored", "lazy"],
    "object_adjectives": _FOOD_ADJECTIVES + _THING_ADJECTIVES,
    "verbs": sorted({form for past, part, _ in _VERBS.values() for form in (past, part)}),
    "places": ["kitchen", "garden", "barn", "yard", "morning", "evening"],
    "other_words": ["the", "it", "was", "because", "by", "and", "never", "very", "so", "in", "this", "then"],
}
KIND_NAMES = {"animals": N_("animals"), "objects": N_("objects"), "animal_adjectives": N_("animal adjectives"),
              "object_adjectives": N_("object adjectives"), "verbs": N_("verbs"), "places": N_("places"),
              "other_words": N_("other words")}                     # English; shown with _(KIND_NAMES[kind])
WORDS = [w for kind in VOCAB.values() for w in kind]          # every known word, once
KIND_OF = {w: kind for kind, words in VOCAB.items() for w in words}
PAD = "<pad>"
INDEX = {w: i for i, w in enumerate([PAD] + WORDS)}           # 0 is padding
MAX_WORDS = 24

# Held out of training: two animals, one food and one thing, and per seen noun two adjectives.
HELD_OUT_NOUNS = ("fox", "owl", "pie", "basket")
SPLIT_SEED = 9
TEMPLATES = ("active", "passive", "because_first", "distractor", "and_then", "never")


def _held_out_pairs():
    """Two (adjective, noun) pairs per seen noun, drawn once with a fixed seed."""
    rng = random.Random(SPLIT_SEED)
    pairs = set()
    for noun in VOCAB["animals"] + VOCAB["objects"]:
        if noun not in HELD_OUT_NOUNS:
            for adjective in rng.sample(_adjectives_for(noun), 2):
                pairs.add((adjective, noun))
    return frozenset(pairs)


def _group(noun):
    return "food" if noun in _FOOD else "things"


def _adjectives_for(noun):
    if noun in VOCAB["animals"]:
        return VOCAB["animal_adjectives"]
    return _FOOD_ADJECTIVES if _group(noun) == "food" else _THING_ADJECTIVES


HELD_OUT_PAIRS = _held_out_pairs()


def _word(kind):
    return checks.Choice(VOCAB[kind])


def _adjective(x, name):
    checks.Choice(VOCAB["animal_adjectives"] + VOCAB["object_adjectives"])(x, name)


@checks.arguments(template=checks.Choice(TEMPLATES), animal=_word("animals"), obj=_word("objects"),
                   verb=checks.Choice(tuple(_VERBS)), adjective=_adjective)
def sentence(template, animal, obj, verb, adjective, *, place="kitchen", intensifier="", describe=("", "")):
    """One sentence of a template; the referent is ``animal`` or ``obj`` by the adjective's kind.

    ``describe``: adjectives put before the animal and the object ("the sleepy cat"), distractors
    that "it" must not take for its own adjective (the one after "it was")."""
    past, participle, _ = _VERBS[verb]
    animal, obj = (f"{a} {n}" if a else n for a, n in zip(describe, (animal, obj)))
    it = f"it was {intensifier + ' ' if intensifier else ''}{adjective}"
    s = {"active": f"the {animal} {past} the {obj} because {it}",
         "passive": f"the {obj} was {participle} by the {animal} because {it}",
         "because_first": f"because {it} the {animal} {past} the {obj}",
         "distractor": f"in the {place} the {animal} {past} the {obj} because {it}",
         "and_then": f"the {animal} {past} the {obj} in the {place} and then {it}",
         "never": f"the {animal} never {past} the {obj} because {it}"}[template]
    return s


@checks.arguments(adjective=_adjective, animal=_word("animals"), obj=_word("objects"))
def referent(adjective, animal, obj):
    """The word "it" refers to: the animal for an animal adjective, the object for an object adjective."""
    return animal if adjective in VOCAB["animal_adjectives"] else obj


def _draw(rng, test):
    """One (sentence, referent) of the train or the test distribution."""
    while True:
        animal, obj = rng.choice(VOCAB["animals"]), rng.choice(VOCAB["objects"])
        verb = rng.choice([v for v, (_, _, g) in _VERBS.items() if g in ("any", _group(obj))])
        adjective = rng.choice(_adjectives_for(animal) + _adjectives_for(obj))
        ref = referent(adjective, animal, obj)
        unseen = animal in HELD_OUT_NOUNS or obj in HELD_OUT_NOUNS or (adjective, ref) in HELD_OUT_PAIRS
        if unseen == test:
            break
    describe = tuple(rng.choice(_adjectives_for(n)) if rng.random() < 0.3 else "" for n in (animal, obj))
    if not test:     # no held-out pairing sneaks into training as a describing adjective either
        describe = tuple("" if (a, n) in HELD_OUT_PAIRS else a for a, n in zip(describe, (animal, obj)))
    s = sentence(rng.choice(TEMPLATES), animal, obj, verb, adjective, place=rng.choice(VOCAB["places"]),
                 intensifier=rng.choice(["", "", "very", "so"]), describe=describe)
    return s, ref


@checks.arguments(seed=checks.Int(0))
def generate(n, *, split="train", seed=0):
    """``n`` (sentence, referent) pairs from the train or the test distribution, seeded (random.Random)."""
    _split(split)
    checks.count(n, "n")
    if n > 100_000:
        raise checks.error("n", "at most 100000 sentences (the splits hold 4000 and 1000)", n)
    rng = random.Random(f"{split}-{seed}")
    return [_draw(rng, split == "test") for _ in range(n)]


SPLIT_SIZES = {"train": 4000, "test": 1000}


def _split(split):
    return checks.choice(split, "split", SPLIT_SIZES, expected="'train' or 'test'")
_CACHE = {}


def examples(split):
    """The fixed train (4000) or test (1000) examples: [(sentence, referent word), ...]."""
    _split(split)
    if split not in _CACHE:
        _CACHE[split] = tuple(generate(SPLIT_SIZES[split], split=split, seed=1))
    return list(_CACHE[split])


def words_of(sentence):
    """Split a typed sentence into known words: lowercased, any spaces, end punctuation dropped.

    Raises TypeError for a non-str, ValueError for no words, too many, an unknown word (named,
    with the kinds of words known) or a sentence without exactly one "it"."""
    checks.string(sentence, "sentence")
    words, problem = _problem(sentence)
    if problem:
        message, fields = problem
        if "words" in fields:                            # an unknown word: the API's message lists the known ones
            known = "; ".join(f"{KIND_NAMES[k]} ({', '.join(v)})" for k, v in VOCAB.items())
            problem = (message + "; the model knows only these kinds of words: {known}", {**fields, "known": known})
        checks.refuse(problem, "sentence")
    return words


def _problem(sentence):
    """(the words of a typed str, what is wrong with them as (message marked N_, its fields) or None)."""
    words = [w.strip(string.punctuation) for w in sentence.lower().split()]
    words = [w for w in words if w]
    if not words:
        return words, (N_("expected some words, got an empty sentence"), {})
    unknown = [w for w in words if w not in KIND_OF]
    if unknown:
        return words, (N_("unknown word {words}"), {"words": ", ".join(repr(w) for w in dict.fromkeys(unknown))})
    if len(words) > MAX_WORDS:
        return words, (N_("expected at most {max} words, got {n}"), {"max": MAX_WORDS, "n": len(words)})
    if words.count("it") != 1:
        return words, (N_("expected the word 'it' exactly once, got it {n} times"), {"n": words.count("it")})
    return words, None


def sentence_problem(sentence):
    """Why ``words_of`` refuses the str ``sentence``, in the learner's language (for a panel; the known
    words are listed apart, by ``live.known_words``), or None when it accepts it. The typed words
    are quoted as typed, never translated."""
    return explain(_problem(sentence)[1])


@checks.arguments(sentences=checks.Items(checks.Text(), min_len=1))
def encode(sentences):
    """Sentences -> (ids (B, T) long, padded with 0; valid_lens (B,); it_pos (B,))."""
    import torch
    split = [s.split() for s in sentences]
    T = max(len(w) for w in split)
    ids = torch.zeros(len(split), T, dtype=torch.long)
    for b, ws in enumerate(split):
        ids[b, :len(ws)] = torch.tensor([INDEX[w] for w in ws])
    valid_lens = torch.tensor([len(ws) for ws in split])
    it_pos = torch.tensor([ws.index("it") for ws in split])
    return ids, valid_lens, it_pos
