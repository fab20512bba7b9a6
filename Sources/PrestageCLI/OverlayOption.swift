import Experiments
import LogFit
import ScenarioFormat


/// `--overlay FILE` on run and validate: the overlay's assignments, then the command line's `--set`s
/// (applied in order, so a `--set` of the same path wins).
enum OverlayOption {
    static func assignments(_ parsed: ParsedCommand) throws(ScenarioLoadError) -> [String] {
        guard let path = parsed.string("overlay") else { return parsed.strings("set") }
        do {
            return try ScenarioOverlay.assignments(contentsOf: path) + parsed.strings("set")
        } catch {
            throw ScenarioLoadError("--overlay \(error.description)")
        }
    }
}
