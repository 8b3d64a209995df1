"""Text from the run store (a run's name, a group, an error line) shown as text, never as
markdown: Streamlit's ``st.subheader``/``st.markdown``/``st.error`` render ``**``, links, images,
``:red[...]`` colours and ``:material/...:`` icons, and a run's name is whatever its author typed."""
from __future__ import annotations

import re

# every ASCII punctuation character markdown or Streamlit's directives give a meaning; CommonMark
# reads a backslash before any of them as that character itself
_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$&=^\"'])")


def md_text(text: object) -> str:
    """``text`` on one line with every markdown character escaped: it shows as typed."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
