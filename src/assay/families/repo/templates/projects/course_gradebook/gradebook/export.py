"""The score sheet in, the examination office's CSV out."""

import csv
import io

from gradebook.course import course_percent
from gradebook.schemes import shown_grade

ID_COLUMNS = ("Matrikelnr", "Name", "Vorname")


def read_sheet(text):
    """The sheet's students: id, name, first name and the remaining cells by column."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")), delimiter=";")
    missing = [name for name in ID_COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"score sheet lacks columns: {', '.join(missing)}")
    students = []
    for row in reader:
        if not (row.get("Matrikelnr") or "").strip():
            continue
        students.append(
            {
                "id": row["Matrikelnr"].strip(),
                "name": row["Name"].strip(),
                "first": row["Vorname"].strip(),
                "cells": {key: value for key, value in row.items() if key not in ID_COLUMNS},
            }
        )
    return students


def registrar_rows(students, course, scheme=None):
    """One row per student for the examination office: id, name, first name, grade; in order
    of Matrikelnummer."""
    scheme = scheme or course["scheme"]
    rows = []
    for student in students:
        grade = shown_grade(course_percent(student["cells"], course), scheme)
        rows.append([student["id"], student["name"], student["first"], grade])
    rows.sort(key=lambda row: int(row[0]))
    return rows


def registrar_csv(rows):
    """The CSV the examination office imports (semicolons, CRLF line ends)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(["Matrikelnummer", "Name", "Vorname", "Note"])
    writer.writerows(rows)
    return out.getvalue()
