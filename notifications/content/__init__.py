"""What a customer email says: templates, translations, the shop's brand, and the snapshot
that makes every attempt of an email send the same bytes (docs/email-content.md).

- `context.py`: the plain values a template sees (never model instances), formatted for the
  customer's language with Babel;
- `sources.py`: which template text an email uses, the shipped default or a published override;
- `render.py`: template text + values -> subject, text and HTML (CSS inlined), or a RenderError
  in plain words; `template_engine.py` renders each part in the restricted language of
  `template_language.py` (the invoice template's HTML too, in its own: documents/);
- `snapshot.py`: the rendered email stored with its notification at the first attempt, and the
  outbound email every later attempt builds from it;
- `overrides.py`: wording changed in the admin (and the invoice template), versioned, refused if
  it does not render;
- `preview.py`: what the admin shows before an email is sent (a version against the sample or
  a real order, a pending notification as it would render now); `preview_files.py`: the same
  for `manage.py email_preview`, written to files;
- `email_test_send.py`: one email from the sample order through the configured provider, tied to no
  order (`manage.py send_test_email`), recorded as an operator action.
"""
