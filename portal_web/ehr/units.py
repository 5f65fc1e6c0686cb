"""Vital-sign units as OpenEMR stores them: imperial, rounded to two places, BMI computed.

OpenEMR keeps ``form_vitals`` in pounds, inches and °F whatever the display setting; a
metric entry is converted on save. Both the browser form and the FHIR API use these
functions, so the same entry is stored identically through either channel.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

KG_PER_LB = 0.45359237
CM_PER_IN = 2.54


def _round(value: float, places: int) -> float:
    """Half-up rounding on the decimal value (what a user expects: 179.4565 → 179.46)."""
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def kg_to_lb(kg: float) -> float:
    return _round(kg / KG_PER_LB, 2)


def lb_to_kg(lb: float) -> float:
    return _round(lb * KG_PER_LB, 2)


def cm_to_in(cm: float) -> float:
    return _round(cm / CM_PER_IN, 2)


def in_to_cm(inches: float) -> float:
    return _round(inches * CM_PER_IN, 2)


def c_to_f(celsius: float) -> float:
    return _round(celsius * 9 / 5 + 32, 2)


def f_to_c(fahrenheit: float) -> float:
    return _round((fahrenheit - 32) * 5 / 9, 2)


def bmi(weight_lb: float, height_in: float) -> float:
    """BMI from stored imperial values, one decimal (OpenEMR: lb × 703 / in²)."""
    if weight_lb <= 0 or height_in <= 0:
        return 0.0
    return _round(weight_lb * 703 / (height_in * height_in), 1)


def bmi_status(value: float) -> str | None:
    """OpenEMR's adult BMI category text."""
    if value <= 0:
        return None
    if value < 18.5:
        return "Underweight"
    if value < 25:
        return "Normal"
    if value < 30:
        return "Overweight"
    return "Obesity"
