"""State external review portal steps (review.insurance.state.test): log in, fill the
request form (modelled on the NAIC uniform external review request), attach documents
through the OS file chooser and submit for an ER- reference.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules).
"""

from __future__ import annotations

from episodes.oracle_steps.web import (
    attach_file,
    choose,
    credentials,
    field,
    page,
    put,
    tap,
)

TAB = "regulator"


def log_in(o, reg):
    """Log in with the 'State Department of Insurance' log-in of input/creds.txt; returns
    the signed-in user's name as the portal shows it (the applicant who signs)."""
    fields = credentials(o, "State Department of Insurance")
    o.show_tab(TAB)
    put(o, field(reg, "User name"), fields["Username"])
    put(o, field(reg, "Password"), fields["Password"])
    tap(o, reg.get_by_role("button", name="Sign in"))
    user = reg.locator("#user-name")
    page(o, user)
    return user.inner_text().strip()


def start_request(o, reg):
    """Main menu > Request an external review: the empty request form."""
    tap(o, reg.get_by_role("navigation", name="Main").get_by_role(
        "link", name="Request an external review"))
    page(o, reg.locator("#request-form"))


def form(reg):
    """The request form (the new one or a draft's)."""
    return reg.locator("#request-form")


def part(reg, number):
    """Part ``number`` of the form (1 Applicant ... 7 Release and signature): labels such
    as 'Phone' occur in more than one part."""
    return form(reg).locator(f"#part{number}")


def fill_answers(o, scope, answers):
    """Type ``answers`` (label -> text) into the text fields of ``scope`` (a part of the
    form), each once."""
    for label, text in answers.items():
        put(o, field(scope, label), text)


def choose_answers(o, scope, answers):
    """Pick ``answers`` (label -> the option as the list shows it, or its beginning) in
    ``scope`` (a part of the form)."""
    for label, option in answers.items():
        choose(o, field(scope, label), option)


def tick(o, scope, label):
    """Tick the radio button or checkbox labelled ``label`` in ``scope`` (left alone when
    it is ticked)."""
    box = scope.get_by_label(label, exact=True)
    page(o, box)
    if not box.is_checked():
        tap(o, box)
    if not box.is_checked():
        raise RuntimeError(f"{label!r} did not stay ticked")


def attach_document(o, reg, path, document_type):
    """Part 8: the document's type, the file through the OS file chooser, Attach (the
    draft is saved with every answer); waits until the file is listed."""
    choose(o, field(form(reg), "Type of document"), document_type)
    attach_file(o, reg.locator("#documents-input"), path)
    tap(o, form(reg).get_by_role("button", name="Attach", exact=True))
    name = path.rsplit("/", 1)[-1]
    page(o, form(reg).get_by_role("link", name=name, exact=True))
    # the upload reloads the long form at the same address, and the browser may put back
    # the earlier scroll position once the page has loaded: wait for that (on a loaded
    # machine the load ends well after the link shows), then start from the top, so the
    # next scrolls are the same in a replay
    reg.wait_for_load_state("load")
    o.wait(1.5)
    o.key("ctrl+Home")


def submit_request(o, reg):
    """Submit request; returns the ER- reference number the confirmation shows."""
    tap(o, form(reg).get_by_role("button", name="Submit request"))
    reference = reg.locator("#reference-number")
    page(o, reference)
    return reference.inner_text().strip()
