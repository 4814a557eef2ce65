"""The password hasher of the test run (config/settings/test.py): Django's PBKDF2 with few
rounds. At Django's rounds each password costs 0.4 s of CPU, and the tests make a user with a
password for every editor, reviewer and admin they log in; the suite's processes share two
cores, so that time was taken from every other test. What the tests check of passwords (the
validators, the login's lockout) does not depend on the rounds."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FewRoundsPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Its hashes are `pbkdf2_sha256` with their rounds written in them, so a product process
    on the production settings (a web a test starts) verifies them as it verifies any."""

    iterations = 1_000
