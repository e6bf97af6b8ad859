"""Reminder texts and how much SMS they take."""

import math

# GSM 03.38: the basic alphabet takes one septet a character, the extension table two.
GSM_BASIC = (
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM_EXTENSION = "^{}\\[~]|€\f"
TEMPLATE = "Hi {first_name}, a reminder of your appointment at {clinic} on {when}. {note}"
TEMPLATE_TAIL = "To cancel or change it call {phone}."


def sms_length(text):
    """``{"encoding", "length", "parts"}`` of ``text``: GSM-7 when every character is in the
    GSM alphabet (160 in one SMS, 153 a part when split), else UCS-2 (70, then 67)."""
    if all(char in GSM_BASIC or char in GSM_EXTENSION for char in text):
        length = sum(2 if char in GSM_EXTENSION else 1 for char in text)
        single, part, encoding = 160, 153, "GSM-7"
    else:
        length = len(text.encode("utf-16-le")) // 2
        single, part, encoding = 70, 67, "UCS-2"
    parts = 1 if length <= single else math.ceil(length / part)
    return {"encoding": encoding, "length": length, "parts": parts}


def when_text(local):
    """``Tue 5 Mar at 09:30``."""
    return f"{local:%a} {local.day} {local:%b} at {local:%H:%M}"


def reminder_text(first_name, local, site):
    """The reminder for ``first_name``'s appointment at local time ``local`` at ``site``."""
    note = f"{site['note']} " if site["note"] else ""
    text = TEMPLATE.format(
        first_name=first_name, clinic=site["name"], when=when_text(local), note=note
    )
    return text + TEMPLATE_TAIL.format(phone=site["phone"])
