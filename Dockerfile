# The product's image: one image for every process of the product; docker-compose.yml picks
# the command (bin/*). It holds the runtime only: the packages of requirements.txt and the
# product's code, never tools/, tests/ or the development requirements
# (tests/unit/test_image.py reads this file and checks what the image would hold).
# It runs as production unless told otherwise: DJANGO_ENV=production refuses a development
# key, debug pages and the drills' fault switches, turns HTTPS-only settings on, and keeps the
# web from serving while `manage.py check --deploy` reports an error. docker-compose.yml, a
# development stack with the mail simulator, sets DJANGO_ENV=development itself.
FROM python:3.11-slim AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.base \
    DJANGO_ENV=production \
    DJANGO_STATIC_ROOT=/app/static

WORKDIR /app
# WeasyPrint (invoices' PDFs) loads Pango at import; DejaVu is the invoices' font.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir --require-hashes -r requirements.txt
COPY manage.py ./
COPY config/ config/
COPY api/ api/
COPY apiauth/ apiauth/
COPY infra/ infra/
COPY intake/ intake/
COPY messaging/ messaging/
COPY notifications/ notifications/
COPY observability/ observability/
COPY orders/ orders/
COPY privacy/ privacy/
COPY shops/ shops/
COPY operations/ operations/
COPY bin/ bin/
# collectstatic needs no real key: the build runs it as development, with a throwaway one.
RUN DJANGO_ENV=development DJANGO_SECRET_KEY=build-only python manage.py collectstatic --no-input --verbosity 0 \
    && useradd --create-home --uid 1000 app && mkdir -p var && chown -R app var
USER app

EXPOSE 8000 5555
CMD ["bin/web"]

# docker-compose.yml's mail simulator: the runtime image plus tools/ and their packages
# (requirements-tools.txt). Built only when asked for (`target: tools`); never deployed.
FROM runtime AS tools
USER root
COPY requirements-tools.txt .
RUN pip install --no-cache-dir --require-hashes -r requirements-tools.txt
COPY tools/ tools/
USER app
EXPOSE 8025
CMD ["tools/bin/mailsim"]

# The default target (`docker build .`, the app services of docker-compose.yml): the runtime.
FROM runtime
