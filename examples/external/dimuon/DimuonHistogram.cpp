// The `dimuon` output, a plugin library built outside lanes (README.md): the
// invariant mass of every opposite-charge pair of muons in each event, from
// NanoAOD's Muon_pt, Muon_eta, Muon_phi, Muon_mass and Muon_charge, in a
// histogram of 100 bins from 0 to 200 GeV that the end of the job writes as
// a ROOT TH1D named after the output's label. The root source reads a
// TTree's leaf arrays as std::vector<float> (and std::vector<int>), the
// rntuple source an RNTuple's as ROOT::RVec<float> (and ROOT::RVec<int>).
//
//   Muon_pt ─┐
//   Muon_eta ┤   write(): pairs of the event ──> the histogram of its lane ─┐
//   ...      ┘                                                               ├─ endJob(): sum ──> TH1D file
//                (a lane holds one event at a time)                          │
//                                                    the other lanes' ───────┘

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <ROOT/RVec.hxx>
#include <TFile.h>
#include <TH1D.h>

#include "lanes/core/Exception.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/TemporaryName.h"

namespace dimuon {

constexpr int kBins = 100;
constexpr double kMin = 0, kMax = 200;  // GeV

// What TH1D::Fill would leave: the counts of the underflow, the 100 bins and
// the overflow, the entries, and the sums over the fills in range from which
// ROOT gives the mean and RMS. Externally synchronised: a value type.
struct Histogram {
  std::array<double, kBins + 2> counts{};
  double entries = 0;
  double sumw = 0, sumwx = 0, sumwx2 = 0;

  void fill(double mass) {
    // TAxis::FindBin's rule; NaN goes to the overflow.
    int const bin = mass < kMin ? 0 : !(mass < kMax) ? kBins + 1 : 1 + int(kBins * (mass - kMin) / (kMax - kMin));
    counts[bin] += 1;
    entries += 1;
    if (bin == 0 || bin == kBins + 1) return;
    sumw += 1;
    sumwx += mass;
    sumwx2 += mass * mass;
  }

  void add(Histogram const& other) {
    for (int bin = 0; bin < kBins + 2; ++bin) counts[bin] += other.counts[bin];
    entries += other.entries;
    sumw += other.sumw;
    sumwx += other.sumwx;
    sumwx2 += other.sumwx2;
  }
};

struct FourVector {
  double px, py, pz, e;
};

FourVector fromPtEtaPhiM(double pt, double eta, double phi, double mass) {
  double const px = pt * std::cos(phi), py = pt * std::sin(phi), pz = pt * std::sinh(eta);
  return {px, py, pz, std::sqrt(px * px + py * py + pz * pz + mass * mass)};
}

double invariantMass(FourVector const& a, FourVector const& b) {
  double const e = a.e + b.e, px = a.px + b.px, py = a.py + b.py, pz = a.pz + b.pz;
  return std::sqrt(std::max(e * e - px * px - py * py - pz * pz, 0.0));
}

// A `global` output: one instance for all lanes, write() called concurrently.
// Lane-confined histograms: write() fills the one of its event's lane, and a
// lane holds one event at a time, so no two calls share one and none waits
// for another (no lock, no atomic): the job scales with threads, and each
// histogram starts a cache line of its own. endJob() adds them up on the
// job's thread after the last event and writes the file; in a multi-process
// or MPI job every process writes its part, and mergeParts() adds the parts.
class DimuonHistogram : public lanes::global::Output {
 public:
  DimuonHistogram(std::string label, lanes::Options const& options)
      : DimuonHistogram(std::move(label), options, lanes::PluginOptions(options, "dimuon")) {}

  void beginJob(lanes::JobContext const& context) override {
    // A TTree's leaf arrays (the root source) or an RNTuple's (the rntuple source).
    auto const& registry = context.registry;
    rvec_ = registry[*registry.find(collection_ + "_pt")].description.type == typeid(ROOT::RVec<float>);
    for (std::size_t i = 0; i < kVariables.size(); ++i) {
      auto const label = collection_ + kVariables[i];
      indices_[i] = *registry.find(label);
      auto const& product = registry[indices_[i]].description;
      auto const& wanted = i == kCharge ? (rvec_ ? typeid(ROOT::RVec<int>) : typeid(std::vector<int>))
                                        : (rvec_ ? typeid(ROOT::RVec<float>) : typeid(std::vector<float>));
      if (product.type != wanted) {
        throw lanes::ConfigurationError("product '" + label + "' is a " + product.typeName + ", not a " +
                                        lanes::demangle(wanted) + " (a leaf array of the root source, or an "
                                        "RNTuple field of the rntuple source, whose type all five share)");
      }
    }
    part_ = lanes::partPath(path_, context.part);
    auto const directory = std::filesystem::path(part_).parent_path();
    if (::access(directory.empty() ? "." : directory.c_str(), W_OK) != 0) {
      throw lanes::ConfigurationError("cannot write '" + part_ + "': its directory is missing or not writable");
    }
    lanes_.assign(context.lanes, {});
  }

  void write(lanes::Event const& event) const override {
    auto& lane = lanes_[event.lane()];
    ++lane.events;
    if (rvec_) {
      fillPairs<ROOT::RVec<float>, ROOT::RVec<int>>(event, lane.histogram);
    } else {
      fillPairs<std::vector<float>, std::vector<int>>(event, lane.histogram);
    }
  }

  void endJob() override {
    for (auto const& lane : lanes_) {
      total_.add(lane.histogram);
      events_ += lane.events;
    }
    writeFile(part_, total_);
    committed_ = true;
  }

  void mergeParts(std::vector<std::string> const& parts) override {
    try {
      Histogram merged;
      for (auto const& part : parts) merged.add(readFile(lanes::partPath(path_, part)));
      writeFile(path_, merged);
    } catch (...) {
      discardParts(parts);
      throw;
    }
    discardParts(parts);
  }

  void discardParts(std::vector<std::string> const& parts) override {
    std::error_code ignored;
    for (auto const& part : parts) {
      std::filesystem::remove(lanes::partPath(path_, part), ignored);
      for (auto const& partial : lanes::partialsOf(lanes::partPath(path_, part))) std::filesystem::remove(partial, ignored);
    }
  }

  // The report's figures, as every output gives them, and the pairs filled:
  // {"file", "committed", "events_written", "bytes", "pairs"}.
  std::string details() const override {
    std::string file;
    for (char c : part_) file += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    std::error_code error;
    auto const bytes = committed_ ? std::filesystem::file_size(part_, error) : 0;
    return R"({"file": ")" + file + R"(", "committed": )" + (committed_ ? "true" : "false") +
           R"(, "events_written": )" + std::to_string(events_) + R"(, "bytes": )" + std::to_string(error ? 0 : bytes) +
           R"(, "pairs": )" + std::to_string(std::llround(total_.entries)) + "}";
  }

 private:
  enum Variable { kPt, kEta, kPhi, kMass, kCharge };
  static constexpr std::array<char const*, 5> kVariables{"_pt", "_eta", "_phi", "_mass", "_charge"};

  DimuonHistogram(std::string label, lanes::Options const& options, lanes::PluginOptions const& checked)
      : Output(std::move(label)), path_(checked.required("file")), collection_(options.getString("collection", "Muon")) {
    std::vector<std::string> keep;
    for (auto const* variable : kVariables) keep.push_back(collection_ + variable);
    this->keep(keep);  // what the output reads: these products, and no other
  }

  template <typename T>
  T const& get(lanes::Event const& event, Variable variable) const {
    return event.get(lanes::ProductToken<T>(&indices_[variable]));
  }

  template <typename Floats, typename Ints>
  void fillPairs(lanes::Event const& event, Histogram& histogram) const {
    auto const& pt = get<Floats>(event, kPt);
    auto const& eta = get<Floats>(event, kEta);
    auto const& phi = get<Floats>(event, kPhi);
    auto const& mass = get<Floats>(event, kMass);
    auto const& charge = get<Ints>(event, kCharge);
    auto const n = pt.size();
    if (eta.size() != n || phi.size() != n || mass.size() != n || charge.size() != n) {
      throw lanes::Exception("the " + collection_ + "_* arrays of this event differ in length");
    }
    std::vector<FourVector> muons;
    for (std::size_t i = 0; i < n; ++i) muons.push_back(fromPtEtaPhiM(pt[i], eta[i], phi[i], mass[i]));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (charge[i] * charge[j] < 0) histogram.fill(invariantMass(muons[i], muons[j]));
      }
    }
  }

  // Writes `histogram` to `target` through a temporary name, renamed once
  // the file reads back whole: a file is complete or absent.
  void writeFile(std::string const& target, Histogram const& histogram) const {
    auto const temporary = lanes::partialPath(target, ::getpid());
    auto const fail = [&](std::string const& why) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw lanes::Exception("cannot write '" + target + "': " + why);
    };
    {
      std::unique_ptr<TFile> file(TFile::Open(temporary.c_str(), "RECREATE"));
      if (!file || file->IsZombie()) fail("ROOT cannot create it");
      TH1D th1(label().c_str(), ("opposite-charge " + collection_ + " pairs;m [GeV];pairs").c_str(), kBins, kMin, kMax);
      th1.SetDirectory(nullptr);
      for (int bin = 0; bin < kBins + 2; ++bin) th1.SetBinContent(bin, histogram.counts[bin]);
      double stats[4] = {histogram.sumw, histogram.sumw, histogram.sumwx, histogram.sumwx2};  // unit weights
      th1.PutStats(stats);
      th1.SetEntries(histogram.entries);
      if (file->WriteTObject(&th1) <= 0) fail("ROOT could not write the histogram");
      file->Close();
      if (file->TestBit(TFile::kWriteError)) fail("ROOT could not write it");
    }
    // ROOT does not always say that a write failed (a full disk): read it back.
    Histogram back;
    try {
      back = readFile(temporary);
    } catch (lanes::Exception const& error) {
      fail(error.message());
    }
    if (back.counts != histogram.counts || back.entries != histogram.entries) fail("it reads back different");
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error) fail(error.message());
  }

  Histogram readFile(std::string const& path) const {
    std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
    if (!file || file->IsZombie()) throw lanes::Exception("cannot read '" + path + "'");
    auto const* th1 = file->Get<TH1D>(label().c_str());  // owned by the file
    if (!th1 || th1->GetNbinsX() != kBins) {
      throw lanes::Exception("'" + path + "' holds no TH1D '" + label() + "' of " + std::to_string(kBins) + " bins");
    }
    Histogram histogram;
    for (int bin = 0; bin < kBins + 2; ++bin) histogram.counts[bin] = th1->GetBinContent(bin);
    double stats[4];
    th1->GetStats(stats);
    histogram.entries = th1->GetEntries();
    histogram.sumw = stats[0];
    histogram.sumwx = stats[2];
    histogram.sumwx2 = stats[3];
    return histogram;
  }

  struct alignas(64) Lane {
    Histogram histogram;
    std::uint64_t events = 0;
  };

  std::string path_;
  std::string collection_;
  std::string part_;
  std::array<lanes::ProductIndex, kVariables.size()> indices_{};
  bool rvec_ = false;  // ROOT::RVec products (an RNTuple's), else std::vector
  mutable std::vector<Lane> lanes_;  // one per lane: see the class comment
  Histogram total_;
  std::uint64_t events_ = 0;
  bool committed_ = false;
};

lanes::RegisterOutput<DimuonHistogram> const registration(
    "dimuon",
    "example built outside lanes: the invariant mass of opposite-charge muon pairs (NanoAOD's Muon_pt, _eta, _phi, "
    "_mass, _charge, from the root or rntuple source) in a TH1D of 100 bins from 0 to 200 GeV: file=PATH (written "
    "at the end), collection=Muon");

}  // namespace dimuon
