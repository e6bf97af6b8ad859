"""Grade schemes: percentages to grades."""

GERMAN = (
    (95, 1.0),
    (90, 1.3),
    (85, 1.7),
    (80, 2.0),
    (75, 2.3),
    (70, 2.7),
    (65, 3.0),
    (60, 3.3),
    (55, 3.7),
    (50, 4.0),
)
LETTERS = (
    (93, "A"),
    (90, "A-"),
    (87, "B+"),
    (83, "B"),
    (80, "B-"),
    (77, "C+"),
    (73, "C"),
    (70, "C-"),
    (60, "D"),
)


def german_grade(percent):
    """The German grade, 1.0 (best) to 5.0 (failed). A percentage exactly on a boundary gets
    the better grade: 50 % passes with 4.0."""
    for low, grade in GERMAN:
        if percent >= low:
            return grade
    return 5.0


def letter_grade(percent):
    """The letter grade, A to F, boundaries included as for the German scheme."""
    for low, grade in LETTERS:
        if percent >= low:
            return grade
    return "F"


def shown_grade(percent, scheme):
    """The grade as the examination office writes it: ``1,3`` or ``B+``."""
    if scheme == "de":
        return f"{german_grade(percent):.1f}".replace(".", ",")
    if scheme == "letter":
        return letter_grade(percent)
    raise ValueError(f"unknown scheme: {scheme!r}")
