"""Acme Health's DME supplier portal (``dme.acmehealth.test``): DME orders with their
written order, face-to-face and medical-necessity facts, on the Acme store."""
