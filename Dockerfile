# One image for every process of the product; docker-compose.yml picks the command (bin/*).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.base \
    DJANGO_STATIC_ROOT=/app/static

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DJANGO_SECRET_KEY=build-only python manage.py collectstatic --no-input --verbosity 0 \
    && useradd --create-home --uid 1000 app && mkdir -p var && chown -R app var
USER app

EXPOSE 8000 5555 8025
CMD ["bin/web"]
