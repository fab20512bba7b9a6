@main
struct Prestage {
    static func main() {
        print("prestage: under construction")
    }
}
