"""The review of emails that wait for a person, from the admin's notification list or
`manage.py notification_resolve`, through the same services.

- `services.py`: retry under the same key, reject, take on (and the reopening a dead-letter
  replay shares);
- `resolve.py`: the decisions that finish an email the pipeline could not: mark it sent with
  the evidence, send it again under a new key, correct the address and send it again;
- `admin.py`: the notification list and page (/admin/notifications/notification/), with
  `admin_actions.py` (the actions, thin over the services), `email_section.py` (the email as
  stored or previewed) and `remembered_filters.py`.
"""
