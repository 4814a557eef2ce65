# One image for every process of the product; docker-compose.yml picks the command (bin/*).
# It runs as production unless told otherwise: DJANGO_ENV=production refuses a development
# key, debug pages and the drills' fault switches, turns HTTPS-only settings on, and keeps the
# web from serving while `manage.py check --deploy` reports an error. docker-compose.yml, a
# development stack with the mail simulator, sets DJANGO_ENV=development itself.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.base \
    DJANGO_ENV=production \
    DJANGO_STATIC_ROOT=/app/static

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# collectstatic needs no real key: the build runs it as development, with a throwaway one.
RUN DJANGO_ENV=development DJANGO_SECRET_KEY=build-only python manage.py collectstatic --no-input --verbosity 0 \
    && useradd --create-home --uid 1000 app && mkdir -p var && chown -R app var
USER app

EXPOSE 8000 5555 8025
CMD ["bin/web"]
