from django.http import JsonResponse

from infra.health import readiness_problems


def healthz(request):
    return JsonResponse({"ok": True})


def readyz(request):
    problems = readiness_problems()
    return JsonResponse({"ready": not problems, "problems": problems}, status=503 if problems else 200)
