"""The admin's login, as someone guessing would try it: staff passwords must be worth guessing
(Django's password validators), and after ADMIN_LOGIN_FAILURE_LIMIT wrong passwords for one
user name from one address the login is refused, the right password included, for
ADMIN_LOGIN_COOLOFF_MINUTES (django-axes); other users and addresses log in as before."""

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db
LOGIN = "/admin/login/?next=/admin/"
# Made here: a tracked file holds no literal password (tests/unit/secret_scan.py).
GOOD = "correct " + "horse battery staple"


def _staff(name: str) -> User:
    return User.objects.create_user(name, email=f"{name}@tea-house.example", password=GOOD, is_staff=True)


def test_a_staff_password_that_is_easy_to_guess_is_refused():
    # given
    user = _staff("rita")
    me = Client()
    me.force_login(user)
    # when
    answers = [
        me.post(
            "/admin/password_change/",
            {"old_password": GOOD, "new_password1": weak, "new_password2": weak},
        )
        # too short, too common, like the user's own address, only digits
        for weak in ("1", "password1234", "rita@tea-house", "83746251093847")
    ]
    # then: each refused with the form again, and the password unchanged
    assert [answer.status_code for answer in answers] == [200, 200, 200, 200]
    user.refresh_from_db()
    assert user.check_password(GOOD)


def test_guessing_a_staff_password_locks_that_user_name_out_from_that_address():
    # given
    _staff("rita")
    _staff("olga")
    guesser = Client(REMOTE_ADDR="198.18.0.7")
    limit = settings.AXES_FAILURE_LIMIT
    # when: as many wrong passwords as the limit allows
    wrong = [guesser.post(LOGIN, {"username": "rita", "password": f"guess-{n}"}) for n in range(limit)]
    right = guesser.post(LOGIN, {"username": "rita", "password": GOOD})
    # then: the right password is refused too, without saying whether it was right
    assert {answer.status_code for answer in wrong[: limit - 1]} == {200}
    assert right.status_code == 429
    assert "_auth_user_id" not in guesser.session
    # and another user from that address, or the same user from another, log in as before
    other_user = guesser.post(LOGIN, {"username": "olga", "password": GOOD})
    elsewhere = Client(REMOTE_ADDR="198.18.0.8").post(LOGIN, {"username": "rita", "password": GOOD})
    assert (other_user.status_code, other_user["Location"]) == (302, "/admin/")
    assert (elsewhere.status_code, elsewhere["Location"]) == (302, "/admin/")
