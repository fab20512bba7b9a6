import Foundation

/// A measurement script for browser tests of rendered reports. Reports themselves never contain scripts;
/// a test injects this into its own copy of a page (`instrumented`), loads it in headless Chromium with
/// `--dump-dom`, and reads the JSON the script leaves in `<pre id="layout-probe">` (`measurements`).
///
/// Measured: the viewport and document widths (a page that scrolls sideways has
/// `scrollWidth > innerWidth`), the smallest rendered text size in CSS pixels of visible text, both in
/// HTML and in charts (font size × the SVG's current scale), chart text that is empty or reads
/// NaN/Infinity/n/a, charts whose data marks fall outside their plotting area (or that have no marks
/// and no "No data" note), and charts or table boxes that stick out of the viewport.
package enum LayoutProbe {
    /// The script (plain ES2017, no external references).
    package static let script = """
        (function () {
          var problems = [];
          var minFont = { px: 1e9, text: '' };
          function note(px, text) { if (px < minFont.px) { minFont = { px: px, text: text }; } }
          var width = window.innerWidth;
          var svgs = Array.prototype.filter.call(document.querySelectorAll('svg.chart'), function (s) { return s.getClientRects().length > 0; });
          svgs.forEach(function (svg) {
            var title = (svg.querySelector('title') || {}).textContent || '?';
            var scale = svg.getScreenCTM().a;
            var box = svg.getBoundingClientRect();
            if (box.right > width + 0.5 || box.left < -0.5) { problems.push('chart sticks out of the viewport: ' + title); }
            Array.prototype.forEach.call(svg.querySelectorAll('text'), function (t) {
              var text = t.textContent;
              if (text.trim() === '') { problems.push('empty chart text in ' + title); }
              if (/NaN|Infinity|n\\/a/.test(text)) { problems.push('chart text "' + text + '" in ' + title); }
              note(parseFloat(getComputedStyle(t).fontSize) * scale, text);
            });
            var view = svg.viewBox.baseVal;
            Array.prototype.forEach.call(svg.querySelectorAll('text'), function (t) {
              var b = t.getBBox();
              if (t.closest('[transform]') || t.hasAttribute('transform')) { return; }
              if (b.x < view.x - 1 || b.x + b.width > view.x + view.width + 1) { problems.push('text "' + t.textContent + '" cut off at the chart edge in ' + title); }
            });
            var ticks = Array.prototype.map.call(svg.querySelectorAll('g.axis.x text'), function (t) { return t.getBoundingClientRect(); });
            for (var i = 1; i < ticks.length; i++) {
              if (ticks[i].left < ticks[i - 1].right && Math.abs(ticks[i].top - ticks[i - 1].top) < 2) { problems.push('x-axis labels overlap in ' + title); }
            }
            var plot = svg.querySelector('rect.plot');
            var marks = svg.querySelectorAll('.data path.series, .data rect.bar, .data rect.segment, .data circle.point, .data circle.series-point');
            if (marks.length === 0) {
              if (!svg.querySelector('.no-data')) { problems.push('no data marks and no "No data" note: ' + title); }
              return;
            }
            var visible = Array.prototype.filter.call(marks, function (m) { var b = m.getBBox(); return b.width > 0.5 || b.height > 0.5; });
            if (visible.length === 0 && !svg.querySelector('.no-data')) { problems.push('chart drawn empty (no visible data mark): ' + title); }
            if (!plot) { return; }
            var p = plot.getBBox();
            Array.prototype.forEach.call(marks, function (m) {
              var b = m.getBBox();
              if (b.x < p.x - 4 || b.y < p.y - 4 || b.x + b.width > p.x + p.width + 4 || b.y + b.height > p.y + p.height + 4) {
                problems.push('data mark outside the plotting area: ' + title);
              }
            });
          });
          var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          var node;
          while ((node = walker.nextNode())) {
            var element = node.parentElement;
            if (!element || node.textContent.trim() === '' || element.closest('svg') || element.getClientRects().length === 0) { continue; }
            note(parseFloat(getComputedStyle(element).fontSize), node.textContent.trim().slice(0, 40));
          }
          Array.prototype.forEach.call(document.querySelectorAll('.table-wrap'), function (wrap) {
            var r = wrap.getBoundingClientRect();
            if (r.width > 0 && r.right > width + 0.5) { problems.push('table box sticks out of the viewport'); }
            if (r.width === 0) { return; }
            // Every shown cell on screen: no value column hidden behind a sideways scroll.
            var caption = (wrap.querySelector('caption') || wrap.querySelector('th') || {}).textContent || '?';
            var cut = Array.prototype.filter.call(wrap.querySelectorAll('th, td'), function (c) {
              if (c.getClientRects().length === 0) { return false; }
              var b = c.getBoundingClientRect();
              return b.width > 0 && (b.right > r.right + 1 || b.left < r.left - 1);
            });
            if (cut.length > 0) { problems.push('table cells off screen (' + cut.length + ', e.g. "' + cut[0].textContent.slice(0, 30) + '") in table "' + caption.slice(0, 60) + '"'); }
          });
          function clipped(e) {
            for (var a = e.parentElement; a; a = a.parentElement) { if (getComputedStyle(a).overflowX !== 'visible') { return true; } }
            return false;
          }
          // The outermost elements reaching past the right edge, named for the failure message.
          var wide = [];
          Array.prototype.forEach.call(document.querySelectorAll('body *'), function (e) {
            var sticksOut = e.getBoundingClientRect().right > width + 0.5 && !(e.parentElement && e.parentElement.getBoundingClientRect().right > width + 0.5);
            var spills = e.tagName !== 'HTML' && e.tagName !== 'BODY' && e.tagName !== 'MAIN' && !(e instanceof SVGElement)
              && getComputedStyle(e).overflowX === 'visible' && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0;
            if (wide.length < 5 && (sticksOut || spills) && !clipped(e)) {
              wide.push(e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? '.' + e.className : '') + ' right=' + Math.round(e.getBoundingClientRect().right) + ' content=' + e.scrollWidth);
            }
          });
          if (document.documentElement.scrollWidth > width) { problems.push('wider than the viewport: ' + wide.join(', ')); }
          var result = { innerWidth: width, scrollWidth: document.documentElement.scrollWidth,
                         visibleCharts: svgs.length, minFontPx: minFont.px, minFontText: minFont.text, problems: problems };
          // Inside a frame (see `framed`), the result goes to the framing page, which is what --dump-dom prints.
          var host = window.parent && window.parent !== window ? window.parent.document : document;
          var pre = host.createElement('pre');
          pre.id = 'layout-probe';
          pre.textContent = JSON.stringify(result);
          host.body.appendChild(pre);
        })();
        """

    /// `html` with the script appended to the body and the Content-Security-Policy widened to allow
    /// exactly this inline script. For a test's copy of a page only.
    package static func instrumented(_ html: String) -> String {
        let widened = html.replacingOccurrences(of: "style-src 'unsafe-inline';", with: "style-src 'unsafe-inline'; script-src 'unsafe-inline';")
        return widened.replacingOccurrences(of: "</body>", with: "<script>\n" + script + "\n</script>\n</body>")
    }

    /// A page showing `html` in a borderless frame exactly `width` × `height` CSS px at its top left.
    /// Headless Chromium will not make its window narrower than 500 px, so a phone width is tested by
    /// framing the report at that width (the frame is the report's viewport; a `srcdoc` frame shares the
    /// framing page's origin, so an instrumented report can write its measurements into that page).
    package static func framed(_ html: String, width: Int, height: Int) -> String {
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>html, body { margin: 0; padding: 0; } iframe { border: 0; display: block; }</style></head>\n"
            + "<body><iframe width=\"" + String(width) + "\" height=\"" + String(height) + "\" srcdoc=\"" + TextFormat.escapeXML(html)
            + "\"></iframe></body></html>\n"
    }

    /// The measurements the script left in a `--dump-dom` output, as a JSON object; nil when absent.
    package static func measurements(inDump dom: String) -> [String: Any]? {
        guard let start = dom.range(of: "<pre id=\"layout-probe\">"),
              let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else { return nil }
        let text = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}
