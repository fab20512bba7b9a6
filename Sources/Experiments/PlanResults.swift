import Foundation
import Glibc
import ScenarioFormat

/// A plan's results directory `DIR`: `plan.json`, `plan.csv`, `plan.md`, `plan.html` and
/// `evaluations/` (one file per replication run), under the rules of every results directory
/// (`ResultsDirectory`): one live owner, work in `DIR.partial/` with an `INCOMPLETE` marker, one
/// rename to `DIR/` when the plan is written, and only earlier plan results ever replaced.
///
/// A plan resumes: an interrupted plan's `DIR.partial/` is reused as it is, and a completed
/// plan's `DIR/evaluations/` is copied into the new `DIR.partial/` before any work, so a rerun
/// (a wider range, a finer tolerance) reuses every replication already run; each one is checked
/// by `PlanEvaluator` when it is read.
package struct PlanResults: Sendable {
    /// The stored replications' subdirectory.
    package static let evaluationsDirectory = "evaluations"
    /// The file that marks completed plan results (written only when the plan is answered).
    package static let documentName = "plan.json"
    /// Every name a plan writes in its directory.
    package static let ownFiles: Set<String> = [documentName, "plan.csv", "plan.md", "plan.html", evaluationsDirectory]
    /// Earlier results a plan may replace: a directory holding nothing but a plan's files.
    package static let earlierResults = ResultsDirectory.Replaceable(files: ownFiles, marker: documentName)

    /// The partial directory being written, and its lock.
    package let directory: ResultsDirectory
    /// Replications copied from the earlier results in `DIR/evaluations/`.
    package let carried: Int

    /// Where the evaluator stores replications: `DIR.partial/evaluations/`.
    package var evaluationsURL: URL { directory.partialURL.appendingPathComponent(Self.evaluationsDirectory, isDirectory: true) }

    /// Opens the plan's results directory `NAME` in `parent` for `owner`: takes its lock, refuses
    /// (before any work) a `DIR` that is not earlier plan results (a user's directory, a run's
    /// results, a symbolic link) and a `DIR.partial` that is not this tool's, resumes this tool's
    /// `DIR.partial` or starts one, and carries the earlier results' evaluations into it.
    /// An `evaluations/` that is a link, or holds anything but evaluation files (a hidden file, a
    /// link, a directory, another name), is refused; the temporary files of writes cut short in
    /// the partial directory are removed.
    /// A refusal leaves no lock file beside the user's directory.
    /// - Throws: `FileOutputError` naming the path and the fix.
    package static func open(in parent: URL, name: String, owner: OutputOwner) throws(FileOutputError) -> PlanResults {
        let (directory, carried) = try ResultsDirectory.openCarryingEvaluations(in: parent, name: name, owner: owner, replacing: earlierResults,
                                                                                 ownFiles: ownFiles, what: "plan evaluations")
        return PlanResults(directory: directory, carried: carried)
    }

    /// Writes the plan's files (`plan.json` last) and commits `DIR.partial/` as `DIR/`, replacing
    /// earlier plan results.
    /// - Returns: the final URL.
    /// - Throws: `FileOutputError`; the directory then stays partial.
    @discardableResult
    package func commit(document: Data, csv: Data, markdown: Data, html: Data) throws(FileOutputError) -> URL {
        try directory.write(csv, named: "plan.csv")
        try directory.write(markdown, named: "plan.md")
        try directory.write(html, named: "plan.html")
        try directory.write(document, named: Self.documentName)
        return try directory.commit(replacing: Self.earlierResults)
    }
}
