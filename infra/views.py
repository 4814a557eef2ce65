from django.http import HttpRequest, JsonResponse

from infra.health import readiness_problems


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})


def readyz(request: HttpRequest) -> JsonResponse:
    problems = readiness_problems()
    return JsonResponse({"ready": not problems, "problems": problems}, status=503 if problems else 200)
