import ScenarioFormat

/// Where a command writes text (standard output, standard error, or a buffer in tests).
package protocol TextOutput: AnyObject, Sendable {
    /// Writes `text` as is (callers add the newlines).
    func write(_ text: String)
}
