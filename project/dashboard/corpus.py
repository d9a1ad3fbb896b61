"""A tiny sentiment corpus for the dashboard, written for it: short movie-review
sentences labelled 1 (positive) or 0 (negative).

It lets the Sentiment section train in seconds and offline. SST-2 (Task 4.5) is the
real data; once ``python project/run_sentiment.py`` has downloaded it, the dashboard
offers it too.
"""

from __future__ import annotations

from typing import List, Tuple

POSITIVE = [
    "a wonderful , moving film",
    "the acting is brilliant and the story is touching",
    "funny , warm and smart",
    "one of the best movies of the year",
    "a delightful surprise from start to finish",
    "beautifully shot and wonderfully acted",
    "i loved every minute of it",
    "a charming and clever comedy",
    "the cast is excellent",
    "a gripping , powerful drama",
    "great fun for the whole family",
    "an absolute joy to watch",
    "the music is lovely and the ending is perfect",
    "smart writing and a great performance",
    "it is a moving and honest film",
    "fresh , funny and full of heart",
    "the director does a superb job",
    "a brilliant , beautiful movie",
    "entertaining from the first scene",
    "a masterpiece of quiet emotion",
    "the story is engaging and the jokes work",
    "an enjoyable , good movie",
    "surprisingly sweet and very funny",
    "a great cast in a great film",
    "you will laugh and you will cry , in the best way",
    "thoughtful , tender and wise",
    "it works wonderfully",
    "the best comedy in years",
    "well made and well worth seeing",
    "a rich , rewarding experience",
    "not bad at all , actually quite good",
    "i was never bored",
]

NEGATIVE = [
    "a dull , lifeless film",
    "the acting is terrible and the story is boring",
    "not funny , not smart , not worth it",
    "one of the worst movies of the year",
    "a tedious mess from start to finish",
    "badly shot and poorly acted",
    "i hated every minute of it",
    "a stupid and lazy comedy",
    "the cast is wasted",
    "a slow , pointless drama",
    "an awful waste of time",
    "painful to watch",
    "the music is annoying and the ending is a disaster",
    "lazy writing and a bad performance",
    "it is a boring and dishonest film",
    "stale , unfunny and empty",
    "the director does a poor job",
    "a bland , ugly movie",
    "boring from the first scene",
    "a failure of cheap emotion",
    "the story is confusing and the jokes fall flat",
    "an unpleasant , bad movie",
    "surprisingly sour and never funny",
    "a good cast in a terrible film",
    "you will yawn and you will check your watch",
    "shallow , clumsy and dumb",
    "it does not work",
    "the worst comedy in years",
    "poorly made and not worth seeing",
    "a flat , frustrating experience",
    "not good at all , actually quite bad",
    "i was bored the whole time",
]


def corpus() -> Tuple[List[str], List[int]]:
    """The sentences and their labels (positives first)."""
    sentences = POSITIVE + NEGATIVE
    return sentences, [1] * len(POSITIVE) + [0] * len(NEGATIVE)
