import datetime
import unittest

from reminders.clock import to_utc
from reminders.holidays import is_working_day
from reminders.schedule import send_times
from reminders.sms import sms_length


class ClockTest(unittest.TestCase):
    def test_winter(self):
        self.assertEqual(to_utc("2024-01-15T09:30"), "2024-01-15T09:30Z")

    def test_summer(self):
        self.assertEqual(to_utc("2024-07-01T09:30"), "2024-07-01T08:30Z")

    def test_summer_time_starts_in_march(self):
        self.assertEqual(to_utc("2024-03-31T10:00"), "2024-03-31T09:00Z")


class HolidayTest(unittest.TestCase):
    def test_regions_differ(self):
        self.assertFalse(is_working_day(datetime.date(2024, 1, 2), "scotland"))
        self.assertTrue(is_working_day(datetime.date(2024, 1, 2), "england-and-wales"))


class ScheduleTest(unittest.TestCase):
    def test_day_reminder_skips_the_weekend(self):
        # two days before a Monday is a Saturday: Friday at 10:00 instead
        self.assertEqual(
            send_times("2024-03-04T09:30", "harley-street", ["2d"]), ["2024-03-01T10:00Z"]
        )

    def test_hour_reminder(self):
        self.assertEqual(
            send_times("2024-03-04T15:00", "harley-street", ["3h"]), ["2024-03-04T12:00Z"]
        )


class SmsTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(
            sms_length("See you at 9:30"), {"encoding": "GSM-7", "length": 15, "parts": 1}
        )

    def test_euro_takes_two(self):
        self.assertEqual(sms_length("Fee: €30")["length"], 9)

    def test_unicode(self):
        self.assertEqual(sms_length("Hi Michał")["encoding"], "UCS-2")


if __name__ == "__main__":
    unittest.main()
