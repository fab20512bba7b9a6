// Fuzz target `scenario`: ScenarioLoader.decode, the strict reader every scenario file goes through
// (JSONParser, StrictJSONDecoder with path-named diagnostics, the model configuration's rules and
// the world's preflight). A line `//--set` splits the input: the lines after it are `--set`
// overrides (`path=value`), as on the command line.
// Properties: no crash (a trap in a model's precondition counts: the reader must refuse first),
// every refusal has a message; an accepted scenario is a fixed point: its canonical JSON never
// fails to encode (documented), decodes again to an equal scenario, and hashes.
import Foundation
@testable import ScenarioFormat

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let parts = sections(Array(UnsafeBufferPointer(start: data, count: size)), separator: "//--set")
    let assignments = parts.dropFirst().flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) }.prefix(8)
    let file: ScenarioFile
    do {
        file = try ScenarioLoader.decode(Data(parts[0]), label: "fuzz.json", set: Array(assignments))
    } catch {
        require(!error.description.isEmpty, "a refusal without a message")
        return 0
    }
    let json: Data
    do { json = try file.canonicalJSON() } catch { require(false, "an accepted scenario does not encode: \(error)"); return 0 }
    do {
        let again = try ScenarioLoader.decode(json, label: "canonical.json")
        require(again == file, "the canonical JSON of an accepted scenario decodes to a different scenario")
    } catch {
        require(false, "the canonical JSON of an accepted scenario is refused: \(error)")
    }
    require((try? file.hash()) != nil, "an accepted scenario does not hash")
    return 0
}
