"""The hub (``ehr-sandbox up``): browse the tasks, run episodes in your browser, record a
gold trace, reset, grade, watch the oracle, and hand an agent its connection string.

``episodes.hub.app`` builds the Starlette app from a :class:`~episodes.hub.state.HubSettings`;
episodes run in the hub's own event loop (several at once), each with its processes.
"""
