"""The Jinja2 environment of every HTML page polistemics writes or serves: the report, the
comparison page and the annotation app.

Each page's templates live in its package's ``templates/`` folder and extend the one skeleton,
``templates/base.html`` of this package (doctype, head, optional Content-Security-Policy meta,
body). Autoescaping is on for every template and undefined names are errors: text from a run or
a user is always text. A page inserts markup unescaped only where it marks it ``Markup`` itself.
"""

from __future__ import annotations

import jinja2

BASE_TEMPLATE = "base.html"


def page_environment(package: str) -> jinja2.Environment:
    """An environment that loads ``package``'s templates, then the shared skeleton."""
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.PackageLoader(package, "templates"),
                jinja2.PackageLoader("polistemics", "templates"),
            ]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
