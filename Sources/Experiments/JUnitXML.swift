import ReportKit

/// A JUnit XML document, the test-report format CI systems (GitHub Actions, GitLab, Jenkins)
/// render: suites of cases, each passed, failed (with a message) or skipped. Every command that
/// gates CI writes its verdicts in it (`bench`, `run --fail-on-slo`, `compare`, `plan`).
package struct JUnitXML: Sendable, Equatable {
    /// One case: a metric, an objective, an answer.
    package struct Case: Sendable, Equatable {
        package var name: String
        /// Set when the case failed: what failed, in one line.
        package var failure: String? = nil
        /// Set when the case was not judged: why.
        package var skipped: String? = nil
        /// The case's figures, for the CI log.
        package var output: String

    }

    /// One suite of cases (a scenario, a frontier point, …).
    package struct Suite: Sendable, Equatable {
        package var name: String
        package var cases: [Case]

    }

    /// The document's name, e.g. "prestage bench".
    package var name: String
    /// Prefix of every case's class name, e.g. "prestage.bench" (the suite's name follows).
    package var classPrefix: String
    package var suites: [Suite]


    /// Cases that failed, over every suite.
    package var failures: Int { suites.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count } }

    /// The XML text, one element per line, ending in a newline.
    package var text: String {
        let total = suites.reduce(0) { $0 + $1.cases.count }
        var x = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                 "<testsuites name=\"\(TextFormat.escapeXML(name))\" tests=\"\(total)\" failures=\"\(failures)\">"]
        for suite in suites {
            let f = suite.cases.filter { $0.failure != nil }.count, s = suite.cases.filter { $0.skipped != nil }.count
            x.append("  <testsuite name=\"\(TextFormat.escapeXML(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(f)\" skipped=\"\(s)\">")
            for c in suite.cases {
                x.append("    <testcase classname=\"\(TextFormat.escapeXML(classPrefix)).\(TextFormat.escapeXML(suite.name))\" name=\"\(TextFormat.escapeXML(c.name))\">")
                if let failure = c.failure { x.append("      <failure message=\"\(TextFormat.escapeXML(failure))\">\(TextFormat.escapeXML(failure))</failure>") }
                if let skipped = c.skipped { x.append("      <skipped message=\"\(TextFormat.escapeXML(skipped))\"/>") }
                x.append("      <system-out>\(TextFormat.escapeXML(c.output))</system-out>")
                x.append("    </testcase>")
            }
            x.append("  </testsuite>")
        }
        x.append("</testsuites>")
        return x.joined(separator: "\n") + "\n"
    }
}
