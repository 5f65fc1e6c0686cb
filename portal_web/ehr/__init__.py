"""The OpenEMR-style web EHR: server-rendered pages over the episode's ``ehr`` store.

:mod:`.app` builds the Starlette app; :mod:`.views` holds one module per area of the chart;
:mod:`.clinical` the pure rules (unit conversion, BMI, interaction check, layouts).
"""
