"""The HTTP and WebSocket routes of the web table, one module per resource (docs/web-api.md).

Each module's ``register(app, site)`` adds its routes; the routes parse and check the
request, call the parts of the :class:`~ginrummy.web.site.Site`, and shape the answer.
"""
