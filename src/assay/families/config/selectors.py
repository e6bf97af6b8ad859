"""Kubernetes label selectors: ``matchLabels`` and ``matchExpressions``, as the API server
reads them (``metav1.LabelSelectorAsSelector``).

A selector matches a set of labels when every ``matchLabels`` pair is present and every
expression holds; an empty selector (``{}``) matches everything. The operators:

- ``In``: the key is present and its value is one of ``values`` (which must not be empty);
- ``NotIn``: the key is absent, or its value is none of ``values`` (which must not be empty);
- ``Exists``: the key is present (``values`` must be empty);
- ``DoesNotExist``: the key is absent (``values`` must be empty).

The API server rejects any other operator and the ``values`` mistakes above; so does
:func:`parse_selector`, with :class:`ObjectError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class ObjectError(ValueError):
    """An object the API server would refuse; the message names the field and the reason."""


@dataclass(frozen=True)
class Requirement:
    """One selector requirement: ``key operator values``."""

    key: str
    operator: str
    values: frozenset[str]

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` meet this requirement."""
        present = self.key in labels
        if self.operator == "In":
            return present and labels[self.key] in self.values
        if self.operator == "NotIn":
            return not present or labels[self.key] not in self.values
        if self.operator == "Exists":
            return present
        return not present


@dataclass(frozen=True)
class Selector:
    """A label selector; ``Selector()`` matches every set of labels."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether every requirement holds for ``labels``."""
        return all(requirement.matches(labels) for requirement in self.requirements)


EVERYTHING = Selector()


def parse_selector(value: object, where: str) -> Selector:
    """The selector a ``LabelSelector`` object describes; ``where`` names its field in errors.

    Raises :class:`ObjectError` for a shape or an operator the API server refuses.
    """
    if value is None:
        return EVERYTHING
    if not isinstance(value, dict):
        raise ObjectError(f"{where}: a label selector must be an object")
    requirements: list[Requirement] = []
    labels = value.get("matchLabels") or {}
    if not isinstance(labels, dict):
        raise ObjectError(f"{where}.matchLabels: must be an object of strings")
    for key, label in labels.items():
        if not isinstance(label, str):
            raise ObjectError(f"{where}.matchLabels.{key}: must be a string")
        requirements.append(Requirement(key, "In", frozenset({label})))
    expressions = value.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise ObjectError(f"{where}.matchExpressions: must be a list")
    for index, expression in enumerate(expressions):
        requirements.append(_requirement(expression, f"{where}.matchExpressions[{index}]"))
    return Selector(tuple(requirements))


def _requirement(expression: object, where: str) -> Requirement:
    if not isinstance(expression, dict):
        raise ObjectError(f"{where}: must be an object")
    key, operator = expression.get("key"), expression.get("operator")
    values = expression.get("values") or []
    if not isinstance(key, str) or not key:
        raise ObjectError(f"{where}.key: required")
    if operator not in OPERATORS:
        raise ObjectError(f"{where}.operator: {operator!r} is not one of {', '.join(OPERATORS)}")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ObjectError(f"{where}.values: must be a list of strings")
    if operator in ("In", "NotIn") and not values:
        raise ObjectError(f"{where}.values: must be non-empty when operator is {operator}")
    if operator in ("Exists", "DoesNotExist") and values:
        raise ObjectError(f"{where}.values: must be empty when operator is {operator}")
    return Requirement(key, str(operator), frozenset(values))
