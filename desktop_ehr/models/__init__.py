"""Qt item models over the services' data (tested as models, without views)."""
