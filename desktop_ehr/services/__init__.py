"""Chart reading and writing for the client, in plain Python over the store (no Qt)."""
