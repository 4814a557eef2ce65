class RenderError(Exception):
    """An email could not be rendered; the message says why in plain words, for the person who
    reads it on the notification or in the admin form that refused an override."""


class TemplateMissing(RenderError):
    pass
