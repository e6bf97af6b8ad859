"""Prompts in the task's language and in every style; vague requests with a reference per
reading; threads whose later message overrules the first."""

from __future__ import annotations

import random
import re

import pytest

from assay.families.workflow import phrases
from assay.families.workflow.generator import draft_task
from assay.families.workflow.prompts import STYLES, VAGUE, styles_for
from assay.families.workflow.templates import LANGUAGES, TEMPLATES, Template
from assay.tasks import Task

WORDS = {
    "en": frozenset(
        [
            "the",
            "and",
            "to",
            "is",
            "of",
            "it",
            "a",
            "an",
            "each",
            "with",
            "for",
            "are",
            "or",
            "every",
            "that",
            "in",
            "on",
            "stay",
        ]
    ),
    "de": frozenset(
        [
            "und",
            "die",
            "der",
            "das",
            "nicht",
            "wird",
            "ist",
            "mit",
            "von",
            "auf",
            "für",
            "jede",
            "jedes",
            "sind",
            "bleiben",
            "nach",
            "den",
            "dem",
            "sie",
            "nur",
            "oder",
            "ein",
            "eine",
        ]
    ),
    "fr": frozenset(
        [
            "les",
            "et",
            "des",
            "pas",
            "dans",
            "est",
            "le",
            "la",
            "un",
            "une",
            "du",
            "de",
            "chaque",
            "qui",
            "avec",
            "sont",
            "pour",
            "ou",
            "au",
            "restent",
            "ne",
        ]
    ),
}
"""Common short words of each language, counted to tell which one a text is written in."""
LOCALE = {"de": "de-DE", "fr": "fr-FR", "en": "en-GB"}
READINGS = ("log-archive", "upload-cleanup", "prefix-migration", "job-retry")


def language_of_text(text: str) -> str:
    tokens = re.findall(r"[a-zäöüßàâçéèêëîïôûùœ]+", text.lower())
    counts = {lang: sum(token in words for token in tokens) for lang, words in WORDS.items()}
    return max(counts, key=lambda lang: counts[lang])


def in_locale(chosen: Template, locale: str, style: str, start: int = 0) -> Task:
    """The first draft from ``start`` on whose drawn locale is ``locale``."""
    for draw in range(start, start + 200):
        task = draft_task(chosen, random.Random(draw), 2, draw, style=style)
        if task.spec.locale == locale:
            return task
    raise AssertionError(f"no {locale} draft of {chosen.id}")


@pytest.mark.parametrize("chosen", TEMPLATES, ids=lambda t: t.id)
def test_every_template_is_worded_in_each_language(chosen: Template) -> None:
    draft = chosen.build(random.Random(1), "en-US")
    for facts in (draft.facts, draft.vague) if draft.vague else (draft.facts,):
        english = facts.wording("en")
        for language in LANGUAGES[1:]:
            worded = facts.wording(language)
            assert worded.title != english.title
            assert all(a != b for a, b in zip(worded.steps, english.steps, strict=True))
            assert language_of_text(" ".join((worded.title, *worded.steps))) == language


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("style", sorted(set(STYLES) - {VAGUE}))
def test_a_prompt_is_written_in_the_language_of_its_locale(language: str, style: str) -> None:
    for chosen in TEMPLATES[::3]:
        task = in_locale(chosen, LOCALE[language], style)
        assert language_of_text(task.prompt) == language, task.prompt
        assert f"lang:{language}" in task.spec.tags
        others = [phrases.WORDS[other]["holds"] for other in LANGUAGES if other != language]
        assert not any(frame in task.prompt for frame in others)
        assert phrases.WORDS[language]["holds"] in task.prompt


def test_a_japanese_locale_keeps_an_english_prompt_with_its_own_greeting() -> None:
    task = in_locale(TEMPLATES[0], "ja-JP", "chat")
    assert task.prompt.startswith("お疲れ様です。")
    assert language_of_text(task.prompt) == "en"


def test_the_overruled_thread_says_the_later_message_counts() -> None:
    for language in LANGUAGES:
        task = in_locale(TEMPLATES[1], LOCALE[language], "overruled")
        shortcut = next(s for s in phrases.SHORTCUTS[language] if s in task.prompt)
        resolution = phrases.WORDS[language]["then"].split("{lead}")[1]
        assert task.prompt.index(shortcut) < task.prompt.index(resolution)
        assert task.prompt.index(resolution) < task.prompt.index("\n1. ")
        assert "bad-does-nothing" in task.solutions  # the task is the precise one, not a reading


@pytest.mark.parametrize("template_id", READINGS)
def test_a_vague_task_holds_a_reference_and_a_state_per_reading(template_id: str) -> None:
    chosen = next(t for t in TEMPLATES if t.id == template_id)
    draft = chosen.build(random.Random(5), "en-US")
    assert draft.vague is not None
    assert draft.readings
    task = draft_task(chosen, random.Random(5), 2, 5, style=VAGUE)
    precise = draft_task(chosen, random.Random(5), 2, 5, style="spec")
    for reading in draft.readings:
        assert f"expected-{reading.name}.json" in task.hidden
        assert f"reference-{reading.name}" in task.references()
        assert not {f"bad-{label}" for label in reading.allows} & set(task.solutions)
        assert {f"bad-{label}" for label in reading.allows} <= set(precise.solutions)
        assert reading.expected != draft.expected
    assert "readings" in task.spec.tags
    assert "style:vague" in task.spec.tags
    assert precise.hidden.keys() == {"expected.json"}
    assert len(precise.references()) == 1
    vague_words = draft.vague.wording(
        task.spec.locale[:2] if task.spec.locale[:2] in LANGUAGES else "en"
    )
    assert vague_words.steps[0] in task.prompt or vague_words.steps[-1] in task.prompt


def test_only_templates_with_readings_are_written_vaguely() -> None:
    assert VAGUE not in styles_for(False)
    assert VAGUE in styles_for(True)
    plain = next(t for t in TEMPLATES if t.id == "dlq-redrive")
    assert plain.build(random.Random(0), "en-US").vague is None
    with pytest.raises(ValueError, match="no vague form"):
        draft_task(plain, random.Random(0), 2, 0, style=VAGUE)
    drawn = {
        tag
        for t in TEMPLATES
        for d in range(6)
        for tag in draft_task(t, random.Random(d), 2, d).spec.tags
        if tag.startswith("style:")
    }
    assert drawn == {f"style:{name}" for name in STYLES}
