"""Function 6, about this application: what it is for, the colours of the graph, privacy."""

from __future__ import annotations

from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from tklscore import __version__
from tklscore.gui.patient.ontology_graph import ROLE_COLOUR
from tklscore.gui.patient.words import TITLE


class AboutPage(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        text = QTextBrowser()
        text.setOpenLinks(False)
        text.anchorClicked.connect(QDesktopServices.openUrl)
        text.setStyleSheet("QTextBrowser { background:white; color:#1b2733; font-size:11.5pt; padding:12px; }")
        text.setHtml(f"""
<h2>{TITLE}</h2>
<p>Part of tkl-Score Workbench {__version__}. It mirrors the <i>Patient Data Visualizer</i> of the
Pre-Release Inference Analyzer (PIA) by D. Daniels (2018).</p>
<p><b>What it is for.</b> Before a hospital releases information about you, this application shows
what could be <b>worked out</b> from that information by someone with medical knowledge, which of
those conclusions are too private, and how the release could be changed to prevent them. You can say
how much you mind each of your facts being released; the analyzer takes your wishes into account
when it chooses what to change.</p>
<p><b>Colours in the graph.</b>
<span style="background:#d6e6ff">&nbsp;blue boxes and arrows&nbsp;</span> are from your record;
grey ones are general medical knowledge; dashed purple arrows were worked out;
<span style="background:{ROLE_COLOUR['violation']}; color:white">&nbsp;red&nbsp;</span> is too private to be released;
<span style="background:{ROLE_COLOUR['participant']}">&nbsp;yellow&nbsp;</span> marks your facts that make it possible.
In <i>Patient privacy preferences</i>,
<span style="background:{ROLE_COLOUR['suggested']}; color:white">&nbsp;green&nbsp;</span> is a suggested setting and
<span style="background:{ROLE_COLOUR['current']}">&nbsp;yellow&nbsp;</span> your current setting.</p>
<p><b>Your privacy.</b> Everything runs on this computer. Nothing is sent over the network; web pages
open in your browser only when you click a link.</p>
<p><b>Your preferences</b> are saved in a small file next to your data file
(<code>&lt;name&gt;.preferences.csv</code>), the same file the analyzer reads
(<code>tklscore pia analyze --preferences</code>). Preferences are wishes: the analyzer tries to honour
them, but safety comes first.</p>
<p style="color:#6b7785">The example patient, Bob, and all sample content are made up for illustration.</p>""")
        layout.addWidget(text)
