"""What stands beside the product and never ships with it: the mail provider simulator
(mailsim), the fault drills (drill), the benchmark (bench) and the demo (demo). The product
imports none of it (import-linter, pyproject.toml) and the image leaves it out (Dockerfile)."""
