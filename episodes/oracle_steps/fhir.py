"""The web EHR's FHIR R4 API (``emr.clinic.test/apis/default/fhir``), for the oracles of the
API control tasks: a client-credentials token from the task's ``input/fhir_client.json``,
searches that follow the Bundle's ``next`` links, and document bytes as Binary.

Every request goes through ``o.api_request``, which only API-channel tasks may use; the
screen is not touched.
"""

from __future__ import annotations

import base64
import json


def checked(reply, expected=200, what="the FHIR API"):
    """The JSON of a reply with the ``expected`` status; anything else fails, quoting it."""
    if reply.status != expected:
        raise RuntimeError(f"{what} answered {reply.status}: {reply.text[:300]}")
    return reply.json()


class Fhir:
    """A FHIR client holding a bearer token of the task's client (``fhir_client.json``)."""

    def __init__(self, o, client_file="fhir_client.json"):
        client = json.loads(o.input_text(client_file))
        token = checked(o.api_request("POST", client["token_url"], form={
            "grant_type": "client_credentials", "client_id": client["client_id"],
            "client_secret": client["client_secret"], "scope": client["scope"]}))
        self.o = o
        self.base = client["fhir_base_url"].rstrip("/")
        self.headers = {"Authorization": f"Bearer {token['access_token']}",
                        "Accept": "application/fhir+json"}

    def get(self, url, params=None):
        return checked(self.o.api_request("GET", url, params=params, headers=self.headers))

    def search(self, resource, **params):
        """Every match of a search, page after page (the Bundle's ``next`` links)."""
        found = []
        bundle = self.get(f"{self.base}/{resource}", params)
        while True:
            found += [e["resource"] for e in bundle.get("entry", [])
                      if e.get("search", {}).get("mode", "match") == "match"]
            following = [link["url"] for link in bundle.get("link", [])
                         if link.get("relation") == "next"]
            if not following:
                return found
            bundle = self.get(following[0])

    def one(self, resource, **params):
        """The single match of a search (a second one would be a look-alike: fail)."""
        found = self.search(resource, **params)
        if len(found) != 1:
            raise RuntimeError(f"{len(found)} {resource} resources match {params}")
        return found[0]

    def document(self, reference):
        """The bytes of a DocumentReference's attachment, read as a Binary resource."""
        attachment = reference["content"][0]["attachment"]
        binary = self.get(attachment["url"])
        data = base64.b64decode(binary["data"])
        if "size" in attachment and len(data) != attachment["size"]:
            raise RuntimeError(f"{attachment.get('title')}: {len(data)} bytes, the "
                               f"DocumentReference says {attachment['size']}")
        return data
