"""The web panel: a FastAPI app with a WebSocket push and one static page per role
(table kiosk, player phone, spectators, referee, and the virtual board of --sim)."""
