"""The course's components and the weighted course percentage."""

import json

from gradebook._compat import to_float
from gradebook.scores import late_points, parse_cell


def load_course(text):
    """The course from course.json: scheme and components (name, columns, max, weight,
    drop_lowest, resit: the column of the resit exam, if the component has one)."""
    data = json.loads(text)
    components = []
    for item in data["components"]:
        components.append(
            {
                "name": item["name"],
                "columns": list(item["columns"]),
                "max": to_float(item["max"]),
                "weight": to_float(item["weight"]),
                "drop_lowest": int(item.get("drop_lowest", 0)),
                "resit": item.get("resit"),
            }
        )
    return {"scheme": data.get("scheme", "de"), "components": components}


def component_percent(points, max_points, drop_lowest=0):
    """The percentage of a component from its items' points. Missing items (None) count as
    zero; the ``drop_lowest`` lowest items, missing ones first, do not count."""
    counted = sorted(0.0 if item is None else item for item in points)[drop_lowest:]
    if not counted:
        return 0.0
    return round(sum(counted) * 100 / (max_points * len(counted)), 2)


def course_percent(cells, course):
    """The weighted course percentage of one student from the sheet's cells by column."""
    total = 0.0
    weights = 0.0
    for component in course["components"]:
        points = []
        for column in component["columns"]:
            value, days = parse_cell(cells.get(column) or "")
            points.append(late_points(value, component["max"], days))
        if component.get("resit"):
            retry, _ = parse_cell(cells.get(component["resit"]) or "")
            if retry is not None:
                points = [max(retry, item or 0.0) for item in points]
        percent = component_percent(points, component["max"], component["drop_lowest"])
        total += percent * component["weight"]
        weights += component["weight"]
    return round(total / weights, 2) if weights else 0.0
