"""Reports, team decisions and team summaries as one offline HTML file each (see docs/html.md).

Charts are SVG drawn by matplotlib in this process and inlined; the CSS is inline; the page loads nothing
(its Content-Security-Policy is `default-src 'none'`). Every string from outside is escaped by construction
(`markup.el`) and, unless the user asked for `--identify`, scrubbed of host, user and home names as the JSON is.
"""

from advisor.report.html.decision_page import decision_html
from advisor.report.html.merge_page import merge_html
from advisor.report.html.report_page import report_html

__all__ = ["decision_html", "merge_html", "report_html"]
