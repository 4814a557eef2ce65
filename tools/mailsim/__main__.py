"""Command line: ``python -m tools.mailsim [--host H] [--port P] [--data-dir D] [--api-key K] ...``.

Every option falls back to a MAILSIM_* environment variable, then to a development default
(see tools/mailsim/README.md for the whole list).
"""

import argparse
import logging
import os
import signal
import threading
from collections.abc import Mapping

from tools.mailsim.logs import logging_configure
from tools.mailsim.server import SimulatorServer
from tools.mailsim.simulator import DEFAULT_BREVO_WINDOW_SECONDS, DEFAULT_WINDOW_SECONDS, Simulator
from tools.mailsim.webhooks.settings import WIRES, WebhookSettings, WebhookSettingsError

logger = logging.getLogger("mailsim")


def _port(value: str) -> int:
    port = int(value)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("port must be between 0 and 65535")
    return port


def _positive_seconds(value: str) -> float:
    seconds = float(value)
    if not seconds > 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return seconds


def _non_empty(value: str) -> str:
    if not value:
        raise argparse.ArgumentTypeError("must not be empty")
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ
    parser = argparse.ArgumentParser(prog="python -m tools.mailsim", description="Mail provider simulator.")
    parser.add_argument("--host", default=env.get("MAILSIM_HOST", "127.0.0.1"))
    parser.add_argument(
        "--port", type=_port, default=env.get("MAILSIM_PORT", "8025"), help="0 picks a free port"
    )
    parser.add_argument("--data-dir", default=env.get("MAILSIM_DATA_DIR", "var/mailsim"))
    parser.add_argument("--api-key", type=_non_empty, default=env.get("MAILSIM_API_KEY", "dev-mail-key"))
    parser.add_argument(
        "--idempotency-window-seconds",
        type=_positive_seconds,
        default=env.get("MAILSIM_IDEMPOTENCY_WINDOW_SECONDS", str(DEFAULT_WINDOW_SECONDS)),
    )
    parser.add_argument(
        "--brevo-idempotency-window-seconds",
        type=_positive_seconds,
        default=env.get("MAILSIM_BREVO_IDEMPOTENCY_WINDOW_SECONDS", str(DEFAULT_BREVO_WINDOW_SECONDS)),
    )
    _add_webhook_options(parser, env)
    args = parser.parse_args(argv)
    try:
        args.webhook_settings = WebhookSettings().updated(
            {
                "urls": {wire: getattr(args, f"webhook_url_{wire}") for wire in WIRES},
                "resend_secret": args.resend_webhook_secret,
                "basic_auth": args.webhook_basic_auth,
            }
        )
    except WebhookSettingsError as exc:
        parser.error(str(exc))
    return args


def _add_webhook_options(parser: argparse.ArgumentParser, env: Mapping[str, str]) -> None:
    # An empty environment variable means "not set", as an absent one does.
    for wire in WIRES:
        parser.add_argument(
            f"--webhook-url-{wire}",
            default=env.get(f"MAILSIM_WEBHOOK_URL_{wire.upper()}") or None,
            help=f"where {wire}'s delivery webhooks are posted (none when unset)",
        )
    parser.add_argument(
        "--resend-webhook-secret",
        default=env.get("MAILSIM_RESEND_WEBHOOK_SECRET") or None,
        help="Svix secret (whsec_<base64>) that signs Resend's webhooks",
    )
    parser.add_argument(
        "--webhook-basic-auth",
        default=env.get("MAILSIM_WEBHOOK_BASIC_AUTH") or None,
        help="user:password sent with Brevo's and Postmark's webhooks",
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging_configure()
    simulator = Simulator.open(
        args.data_dir,
        args.api_key,
        args.idempotency_window_seconds,
        args.brevo_idempotency_window_seconds,
        args.webhook_settings,
    )
    if simulator.store.released_in_flight:
        logger.warning(
            "released %d in-flight idempotency key(s) left by a previous run",
            simulator.store.released_in_flight,
        )
    try:
        server = SimulatorServer((args.host, args.port), simulator)
    except OSError as exc:
        logger.error("cannot listen on %s:%s: %s", args.host, args.port, exc)
        simulator.close()
        return 1

    def stop(signum: int, frame: object) -> None:
        # shutdown() waits for serve_forever() to return, so it must not run on the serving thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # Deliveries a previous run left pending go out from here on.
    simulator.webhooks.start()
    print(f"mailsim listening on {server.url}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        simulator.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
