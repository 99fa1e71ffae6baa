"""The web table: a FastAPI server where people play the computer or a friend.

Import :func:`ginrummy.web.app.create_app` for the ASGI app and run
``ginrummy serve`` for the server; the API is described in docs/web-api.md.
"""
