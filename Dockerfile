# The web table in a container: `ginrummy serve` with the compiled hand kernel warmed in
# the image (numba's cache is written at build time, so the first move against Hard does
# not wait for a compiler). docs/deploy.md, "Containers", runs several behind nginx with
# PostgreSQL and Redis (compose.yaml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    NUMBA_CACHE_DIR=/var/cache/ginrummy-numba

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip install '.[web,fast]' \
 && useradd --system --home-dir /app --shell /usr/sbin/nologin gin \
 && mkdir -p "$NUMBA_CACHE_DIR" \
 && GINRUMMY_KERNEL=numba python -c "import ginrummy.kernel as k; print('hand kernel:', k.name())" \
 && chown -R gin "$NUMBA_CACHE_DIR"

USER gin
EXPOSE 8000
# a liveness probe that never touches the database (/readyz is for the load balancer)
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"
# the database and broker URLs come from the command line (compose.yaml), the seed key
# from GINRUMMY_SEED_KEY; a process with neither serves SQLite in /app (not for production)
CMD ["ginrummy", "serve", "--host", "0.0.0.0", "--port", "8000"]
