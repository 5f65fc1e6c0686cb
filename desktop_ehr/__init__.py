"""The desktop EHR client: one PySide6 code base, two personas (Hyperspace, PowerChart).

Layers, from the store up:

- :mod:`desktop_ehr.session` — the run's store, clock and logged-in user; every write goes
  through :meth:`EhrContext.write` (one audited transaction, channel ``desktop``);
- :mod:`desktop_ehr.services` — chart reading, ordering, signing, med rec, discharge, notes,
  documents: plain Python over the store, no Qt;
- :mod:`desktop_ehr.models` — Qt item models over service data, tested as models;
- :mod:`desktop_ehr.widgets` — dialogs and pages that get their models and services through
  their constructors;
- :mod:`desktop_ehr.personas` — a theme, a vocabulary and a layout composition per persona;
- :mod:`desktop_ehr.inspector` — the locator socket the oracle driver reads geometry from.
"""

PERSONAS = ("hyperspace", "powerchart")
