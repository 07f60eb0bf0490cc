//===- Tuner.cpp - Time an artifact's candidates, keep the fastest -------===//
//
// Profiles plan "main" on random inputs once per candidate index (round k
// runs every choice's candidate k), takes each candidate's median time,
// selects the fastest of each choice and saves the artifact (in place,
// atomically, or to another file). A timing cache (JSON) keyed by device,
// driver, choice key and candidate label spares choices measured before.
//
//===----------------------------------------------------------------------===//

#include "Tuner.h"

#include "CommandLine.h"
#include "Json.h"
#include "OutputFile.h"
#include "TensorFiles.h"

#include "fuse/runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

using namespace fuserun;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}


/// Median times in ms by (device, driver, choice key, candidate label).
class TimingCache {
public:
  using Key = std::tuple<std::string, std::string, std::string, std::string>;

  /// Reads `path` if it exists; a malformed file is an error naming it
  /// and where it is wrong (the file is not touched).
  void read(const std::string &path) {
    std::vector<uint8_t> bytes;
    std::string message;
    struct stat info;
    if (stat(path.c_str(), &info) != 0 && errno == ENOENT)
      return;
    if (!readFile(path, bytes, message, uint64_t(1) << 30))
      error("timing cache: " + message);
    JsonValue root;
    if (!parseJson(std::string(bytes.begin(), bytes.end()), root, message))
      error("timing cache '" + path + "': " + message);
    auto bad = [&](const JsonValue &at, const std::string &what) {
      error("timing cache '" + path + "': line " + std::to_string(at.line) +
            ", column " + std::to_string(at.column) + ": " + what);
    };
    const JsonValue *version = root.member("version");
    const JsonValue *entries = root.member("entries");
    if (root.kind != JsonValue::Object)
      bad(root, "expected an object with \"version\" and \"entries\"");
    if (!version || version->kind != JsonValue::Number ||
        version->number != kVersion)
      bad(version ? *version : root,
          "expected \"version\": " + std::to_string(kVersion));
    if (!entries || entries->kind != JsonValue::Array)
      bad(entries ? *entries : root, "expected \"entries\": an array");
    for (size_t i = 0; i < entries->items.size(); ++i) {
      const JsonValue &entry = entries->items[i];
      std::string where = "entry " + std::to_string(i) + ": ";
      if (entry.kind != JsonValue::Object)
        bad(entry, where + "expected an object");
      std::string fields[4];
      for (int f = 0; f < 4; ++f) {
        const JsonValue *field = entry.member(kFields[f]);
        if (!field || field->kind != JsonValue::String)
          bad(field ? *field : entry, where + "expected \"" + kFields[f] +
                                          "\": a string");
        fields[f] = field->string;
      }
      const JsonValue *ms = entry.member("ms");
      if (!ms || ms->kind != JsonValue::Number || !(ms->number >= 0) ||
          !std::isfinite(float(ms->number)))
        bad(ms ? *ms : entry,
            where + "expected \"ms\": a finite, non-negative number");
      times[Key(fields[0], fields[1], fields[2], fields[3])] = ms->number;
    }
  }

  bool find(const Key &key, double &ms) const {
    auto it = times.find(key);
    if (it == times.end())
      return false;
    ms = it->second;
    return true;
  }

  void set(const Key &key, double ms) { times[key] = ms; }
  size_t size() const { return times.size(); }

  /// The cache as JSON, entries sorted (so that the file diffs well).
  std::string serialize() const {
    std::string text = "{\n  \"version\": " + std::to_string(kVersion) +
                       ",\n  \"entries\": [";
    bool first = true;
    for (const auto &[key, ms] : times) {
      const std::string *fields[4] = {&std::get<0>(key), &std::get<1>(key),
                                      &std::get<2>(key), &std::get<3>(key)};
      text += first ? "\n    {" : ",\n    {";
      first = false;
      for (int f = 0; f < 4; ++f)
        text += std::string("\"") + kFields[f] + "\": " +
                jsonString(*fields[f]) + ", ";
      text += format("\"ms\": %.9g}", ms);
    }
    return text + "\n  ]\n}\n";
  }

private:
  static constexpr int kVersion = 1;
  static constexpr const char *kFields[4] = {"device", "driver", "key",
                                             "candidate"};
  std::map<Key, double> times;
};

/// A choice of plan 0 as the tuner sees it.
struct Choice {
  fuse_choice_info info;
  std::vector<fuse_candidate_info> candidates;
  uint32_t previous = 0; // the selection before tuning
  bool cached = false;   // every candidate's time came from the cache
  std::vector<double> times;
};

/// Times the candidates of the uncached choices in plan 0, in rounds: in
/// round k every such choice runs its candidate k (its last when it has
/// fewer), and plan 0 is profiled. Each candidate thus runs where the plan
/// runs it, after the launch that precedes the group; timing them one
/// after another instead let a candidate find its inputs in L2, warmed by
/// the one before (BERT-base at batch 1 on the H100: 12 tiled kernels
/// picked 5-18% faster that way ran 2% slower in the model). Iterations go
/// in chunks so that a long run can say how far it is.
void timeChoices(fuse_model *model, std::vector<Choice> &choices,
                 const TuneOptions &options) {
  size_t numLaunches = fuse_model_plan_num_launches(model, 0);
  long iterations = options.iterations;
  size_t rounds = 0;
  for (const Choice &choice : choices)
    if (!choice.cached)
      rounds = std::max(rounds, choice.candidates.size());
  std::vector<double> samples(size_t(iterations) * numLaunches);
  long chunk = std::max(1L, iterations / 10);
  auto start = std::chrono::steady_clock::now();
  double lastReport = 0;
  for (size_t round = 0; round < rounds; ++round) {
    for (size_t c = 0; c < choices.size(); ++c)
      if (!choices[c].cached)
        check(fuse_model_plan_select(
            model, 0, c,
            uint32_t(std::min(round, choices[c].candidates.size() - 1))));
    for (long done = 0; done < iterations;) {
      long n = std::min(chunk, iterations - done);
      check(fuse_model_profile(
          model, 0, done == 0 ? int(options.warmup) : 0, int(n),
          samples.data() + size_t(done) * numLaunches, nullptr));
      done += n;
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (!options.quiet && seconds > 1 && seconds - lastReport >= 1 &&
          (done < iterations || round + 1 < rounds)) {
        std::fprintf(stderr,
                     "fuse-tune: timing: round %zu of %zu, %ld of %ld runs, "
                     "%.1f s\n",
                     round + 1, rounds, done, iterations, seconds);
        lastReport = seconds;
      }
    }
    for (Choice &choice : choices) {
      if (choice.cached || round >= choice.candidates.size())
        continue;
      const fuse_candidate_info &c = choice.candidates[round];
      std::vector<double> sums;
      for (long it = 0; it < iterations; ++it) {
        double sum = 0;
        for (uint32_t l = 0; l < c.num_launches; ++l)
          sum += samples[size_t(it) * numLaunches + c.first_launch + l];
        sums.push_back(sum);
      }
      choice.times[round] = median(sums);
    }
  }
}

/// "1.25x faster than kernel tiles(64x64) (the previous selection)".
std::string speedUp(const Choice &choice, uint32_t winner) {
  if (winner == choice.previous)
    return "the previous selection, kept";
  double before = choice.times[choice.previous], after = choice.times[winner];
  std::string ratio = after > 0 ? format("%.2fx", before / after)
                                : std::string("too fast to compare,");
  return ratio + " faster than " + choice.candidates[choice.previous].label +
         " (the previous selection)";
}

void printChoice(size_t index, const Choice &choice, uint32_t winner) {
  std::printf("choice %zu %s: %s\n", index, jsonString(choice.info.key).c_str(),
              choice.cached ? "from the cache" : "timed");
  for (size_t i = 0; i < choice.candidates.size(); ++i)
    std::printf("  %c%c %-50s %12.6f ms\n", i == winner ? '*' : ' ',
                i == choice.previous ? '<' : ' ', choice.candidates[i].label,
                choice.times[i]);
  std::printf("  winner: %s, %s\n", choice.candidates[winner].label,
              speedUp(choice, winner).c_str());
}

} // namespace

int fuserun::tuneArtifact(const TuneOptions &options) {
  TimingCache cache;
  // Before anything else: a malformed cache stops the run untouched.
  if (!options.cache.empty())
    cache.read(options.cache);

  fuse_model *model = nullptr;
  check(fuse_model_load(options.model.c_str(), &model));
  size_t numChoices = fuse_model_plan_num_choices(model, 0);
  if (numChoices == 0) {
    std::printf("fuse-tune: %s has no choices in plan '%s': nothing to tune, "
                "nothing written\n",
                options.model.c_str(), fuse_model_plan_name(model, 0));
    fuse_model_free(model);
    return 0;
  }
  auto start = std::chrono::steady_clock::now();
  std::string device = fuse_model_device_name(model);
  std::string driver = fuse_model_device_driver(model);

  std::vector<Tensor> inputs = signature(model, /*outputs=*/false);
  randomize(inputs, 0);
  setInputs(model, inputs);

  std::vector<Choice> choices(numChoices);
  size_t fromCache = 0;
  for (size_t c = 0; c < numChoices; ++c) {
    Choice &choice = choices[c];
    check(fuse_model_plan_choice(model, 0, c, &choice.info));
    choice.previous = choice.info.selected;
    choice.candidates.resize(choice.info.num_candidates);
    choice.times.assign(choice.info.num_candidates, 0);
    choice.cached = true;
    for (uint32_t i = 0; i < choice.info.num_candidates; ++i) {
      check(fuse_model_plan_candidate(model, 0, c, i, &choice.candidates[i]));
      TimingCache::Key key(device, driver, choice.info.key,
                           choice.candidates[i].label);
      choice.cached = choice.cached && cache.find(key, choice.times[i]);
    }
    fromCache += choice.cached;
  }
  size_t timed = numChoices - fromCache;
  if (!options.quiet)
    std::printf("fuse-tune: %s on %s (%s): plan '%s', %zu choice%s, %zu to "
                "time, %zu from the cache\n",
                options.model.c_str(), device.c_str(), driver.c_str(),
                fuse_model_plan_name(model, 0), numChoices,
                numChoices == 1 ? "" : "s", timed, fromCache);
  if (timed > 0)
    timeChoices(model, choices, options);

  size_t changed = 0;
  for (size_t c = 0; c < numChoices; ++c) {
    Choice &choice = choices[c];
    check(fuse_model_plan_record_times(model, 0, c, choice.times.data()));
    fuse_choice_info after;
    check(fuse_model_plan_choice(model, 0, c, &after));
    changed += after.selected != choice.previous;
    if (!options.quiet)
      printChoice(c, choice, after.selected);
    for (size_t i = 0; i < choice.candidates.size(); ++i)
      cache.set(TimingCache::Key(device, driver, choice.info.key,
                                 choice.candidates[i].label),
                choice.times[i]);
  }
  const std::string &output =
      options.output.empty() ? options.model : options.output;
  check(fuse_model_save(model, output.c_str()));
  if (!options.cache.empty() && timed > 0) {
    std::string text = cache.serialize();
    std::string failure;
    // The cache is a file, also one named "-" (it was read from it).
    if (!fuse::tools::writeFileSafely(
            fuse::tools::asFileName(options.cache),
            reinterpret_cast<const uint8_t *>(text.data()), text.size(),
            failure))
      error(failure);
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::string runs =
      timed ? format(" (median of %ld runs after %ld warm-up)",
                     options.iterations, options.warmup)
            : std::string();
  std::printf("fuse-tune: tuned %zu choice%s in %.2f s: %zu timed%s, %zu from "
              "the cache; %zu selection%s changed; wrote %s\n",
              numChoices, numChoices == 1 ? "" : "s", seconds, timed,
              runs.c_str(), fromCache, changed, changed == 1 ? "" : "s",
              output.c_str());
  fuse_model_free(model);
  return 0;
}

