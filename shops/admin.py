"""The connected shops' page in the admin is the intake's: intake/shop_admin.py, with its form in
intake/shop_form.py. What the page does is the shop's platform's (the webhook's address and
topics, the key its secret signs with, a test delivery through the intake), and the platforms
are the intake's, a layer above this app, which orders/ and notifications/ import for the shop of
every order (pyproject.toml's layers). Its URLs stay /admin/shops/shop/...: the model is here."""
