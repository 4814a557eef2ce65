"""The forms of the admin's page "A customer's personal data": the address typed in, and the
erasure's confirmation, which takes the address typed a second time."""

from typing import Any

from django import forms

NOT_THE_SAME = "Not the same address: nothing was erased. Type the customer's address exactly again."


class AddressForm(forms.Form):
    """The address only; whether it is one is the services' word (AddressRefused), so the
    page refuses exactly what the command and the API refuse."""

    address = forms.CharField(
        label="The customer's email address",
        max_length=254,
        widget=forms.EmailInput(attrs={"size": 40, "autocomplete": "off", "autofocus": True}),
    )


class ErasureConfirmForm(forms.Form):
    """The second step of an erasure: the address carried from the first (in the body of a
    POST, never in a URL) and the same address typed again."""

    address = forms.CharField(max_length=254, widget=forms.HiddenInput)
    retyped = forms.CharField(
        label="Type the customer's address again to erase",
        max_length=254,
        required=False,
        widget=forms.TextInput(attrs={"size": 40, "autocomplete": "off", "autofocus": True}),
    )

    def clean(self) -> dict[str, Any]:
        """Any case, spaces around: an address is compared as everywhere else."""
        data = super().clean() or {}
        if "address" in data and data.get("retyped", "").strip().lower() != data["address"].strip().lower():
            self.add_error("retyped", NOT_THE_SAME)
        return data
