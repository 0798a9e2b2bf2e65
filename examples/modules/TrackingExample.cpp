// A worked example of writing modules against lanes (read with core/README.md).
// Three modules of a toy tracking chain, one per concurrency class that fits
// its job, registered by name like any plugin:
//
//   hits (source) ──► tracks (global producer) ──► vertices (stream producer)
//                                                └► trackHistogram (one analyzer)

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"
#include "examples/modules/TrackingExample.h"

namespace lanes::examples {

// global: one instance for all lanes, so produce() is const and keeps no
// per-event state in members. Everything it needs is in the event.
class TrackFinder : public global::Producer {
 public:
  TrackFinder(std::string label, Options const& options)
      : Producer(std::move(label)),
        hits_(consumesAny(options.getString("hits", "hits"))),
        tracks_(produces<Tracks>("tracks")),
        hitsPerTrack_(options.getInt("hits-per-track", 10)) {}

  void produce(Event& event) const override {
    Tracks tracks;
    auto const nTracks = event.size(hits_) / static_cast<std::size_t>(hitsPerTrack_);
    for (std::size_t i = 0; i < nTracks; ++i) tracks.pt.push_back(1.0 + static_cast<double>(i % 50));
    auto const bytes = tracks.pt.size() * sizeof(double);
    event.put(tracks_, std::move(tracks), bytes);
  }

 private:
  ProductToken<AnyProduct> hits_;
  ProductToken<Tracks> tracks_;
  std::int64_t hitsPerTrack_;
};

// stream: one instance per lane, so produce() may keep a cache in members;
// no other lane ever touches this instance.
class VertexFinder : public stream::Producer {
 public:
  VertexFinder(std::string label, Options const&)
      : Producer(std::move(label)), tracks_(consumes<Tracks>("tracks")), vertices_(produces<Vertices>("vertices")) {}

  void produce(Event& event) override {
    auto const& tracks = event.get(tracks_);
    scratch_.assign(tracks.pt.begin(), tracks.pt.end());  // reused buffer: this lane's own
    Vertices vertices;
    vertices.count = scratch_.size() / 5;
    event.put(vertices_, vertices);
  }

 private:
  ProductToken<Tracks> tracks_;
  ProductToken<Vertices> vertices_;
  std::vector<double> scratch_;
};

// one: a single instance never entered concurrently; the framework
// serialises the calls with a task queue, so the histogram needs no lock.
class TrackHistogram : public one::Analyzer {
 public:
  TrackHistogram(std::string label, Options const&) : Analyzer(std::move(label)), tracks_(consumes<Tracks>("tracks")) {}

  void analyze(Event const& event) override {
    for (double pt : event.get(tracks_).pt) ++bins_[static_cast<int>(std::floor(pt / 10))];
    ++events_;
  }
  void endJob() override { lastJobEvents = events_; }

 private:
  ProductToken<Tracks> tracks_;
  std::map<int, std::uint64_t> bins_;
  std::uint64_t events_ = 0;
};

namespace {
RegisterModule<TrackFinder> const trackFinder("example-tracks", "example: tracks from the size of `hits`");
RegisterModule<VertexFinder> const vertexFinder("example-vertices", "example: vertices from tracks (stream)");
RegisterModule<TrackHistogram> const trackHistogram("example-histogram", "example: a track-pt histogram (one)");
}  // namespace

}  // namespace lanes::examples
