"""The take-home file: the Lesson and Explore as ONE self-contained offline HTML file (issue 46),
written by ``fedquad export html`` (``cli``, registered as a ``fedquad.commands`` entry point, so
the engine never imports the app), ``python -m app.export.takehome html``, or the Lesson page's
download. ``collect`` builds everything with the dashboard's own figure and text code from the
recorded studies, ``store`` keeps each figure once (compressed), ``page`` writes the file from
``template.html``, ``takehome.css`` and ``takehome.js``. Kept light: importing this package
imports nothing (``fedquad --help`` loads ``cli``)."""
