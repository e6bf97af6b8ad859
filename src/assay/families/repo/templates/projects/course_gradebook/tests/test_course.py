import unittest

from gradebook.course import component_percent, course_percent, load_course
from gradebook.scores import late_points, parse_cell

COURSE = load_course(
    '{"components": [{"name": "hw", "columns": ["HA1", "HA2"], "max": 10, "weight": 40,'
    ' "drop_lowest": 1}, {"name": "exam", "columns": ["K"], "max": 50, "weight": "60"}]}'
)


class ScoresTest(unittest.TestCase):
    def test_cell(self):
        self.assertEqual(parse_cell("17,5*2"), (17.5, 2))
        self.assertEqual(parse_cell("-"), (None, 0))

    def test_late(self):
        self.assertEqual(late_points(18, 20, 2), 14)

    def test_late_cutoff(self):
        self.assertEqual(late_points(18, 20, 8), 0)

    def test_late_never_negative(self):
        self.assertEqual(late_points(3, 20, 5), 0)


class CourseTest(unittest.TestCase):
    def test_drop_lowest(self):
        self.assertEqual(component_percent([8, 4, 10], 10, 1), 90)

    def test_missing_is_dropped_first(self):
        self.assertEqual(component_percent([8, None, 10], 10, 1), 90)

    def test_resit(self):
        course = load_course(
            '{"components": [{"name": "exam", "columns": ["K"], "max": 50, "weight": 1,'
            ' "resit": "NK"}]}'
        )
        self.assertEqual(course_percent({"K": "20", "NK": "31"}, course), 62)
        self.assertEqual(course_percent({"K": "20", "NK": "12"}, course), 40)

    def test_weighted(self):
        self.assertEqual(course_percent({"HA1": "10", "HA2": "5", "K": "25"}, COURSE), 70)


if __name__ == "__main__":
    unittest.main()
