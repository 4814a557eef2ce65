"""The simulator logs JSON lines too, like the product, so one event id finds its request."""

import json
import logging

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({key: value for key, value in record.__dict__.items() if key not in _STANDARD})
        return json.dumps(line, default=str)


def logging_configure() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines())
    logging.basicConfig(level=logging.INFO, handlers=[handler])
