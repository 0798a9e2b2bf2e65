// The small pieces the scheduler is made of: options, specs, errors, product
// slots, the waiting list and the limited task queue (under contention).

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "core/TestPlugins.h"
#include "lanes/core/Event.h"
#include "lanes/core/LimitedTaskQueue.h"
#include "lanes/core/detail/TbbHandOff.h"
#include "lanes/core/detail/HoldCount.h"
#include "lanes/core/detail/WaitingList.h"

namespace lanes::test {
namespace {

TEST(PluginSpecTest, ParsesNameAndRepeatedOptions) {
  auto spec = PluginSpec::parse("root:file=a.root,file=b.root,imt=true");
  EXPECT_EQ(spec.name, "root");
  EXPECT_EQ(spec.options.getAll("file"), (std::vector<std::string>{"a.root", "b.root"}));
  EXPECT_TRUE(spec.options.getBool("imt", false));
}

TEST(PluginSpecTest, RejectsPairWithoutValue) {
  EXPECT_THROW(PluginSpec::parse("busy:scale"), Exception);
  EXPECT_THROW(PluginSpec::parse(":x=1"), Exception);
}

TEST(OptionsTest, TypedGettersRejectIllTypedValues) {
  auto options = PluginSpec::parse("x:n=12,d=1e-3,b=maybe,s=text").options;
  EXPECT_EQ(options.getInt("n", 0), 12);
  EXPECT_DOUBLE_EQ(options.getDouble("d", 0), 1e-3);
  EXPECT_EQ(options.getString("s", ""), "text");
  EXPECT_EQ(options.getInt("missing", 7), 7);
  EXPECT_THROW(options.getBool("b", false), Exception);
  EXPECT_THROW(options.getInt("d", 0), Exception);
}

TEST(OptionsTest, PrefixedKeysAndUnusedDetection) {
  auto options = PluginSpec::parse("x:size.a=1,size.b=2,typo=3").options;
  EXPECT_EQ(options.getPrefixed("size.").size(), 2u);
  try {
    options.requireAllUsed();
    FAIL();
  } catch (Exception const& e) {
    EXPECT_EQ(std::string(e.what()), "unknown option 'typo' (known: size.*)");
  }
}

TEST(ExceptionTest, ContextStackGivesOneLine) {
  Exception e("disk full");
  e.addContext({{}, {}, {}, {}, "out.root"});
  e.addContext({"writer", Transition::Event, 3, EventId{1, 2, 42}, {}});
  EXPECT_EQ(e.oneLine(), "module 'writer' (event, lane 3, event 1:2:42, file 'out.root'): disk full");
  EXPECT_EQ(e.context().back().module, "writer");
}

TEST(ExceptionTest, MessagesAreOnePrintableLine) {
  // ROOT's text, as it reported a damaged byte count, and a class name read from damaged bytes.
  EXPECT_EQ(printableLine("around buffer position 919:\n\t65521 for a possible maximum of 31047\n"),
            "around buffer position 919: 65521 for a possible maximum of 31047");
  EXPECT_EQ(printableLine("Unknown class \xf0\x9f\x0cStreamerInfo\x12Z\x08" "F\x01"),
            "Unknown class \\xf0\\x9f StreamerInfo\\x12Z\\x08F\\x01");
  // UTF-8 stays as it is; a lone continuation byte, an overlong form and a cut sequence do not.
  EXPECT_EQ(printableLine("rootreadspeed \xc3\xb7 lanes, \xe2\x82\xac"), "rootreadspeed \xc3\xb7 lanes, \xe2\x82\xac");
  EXPECT_EQ(printableLine("a\x80z \xc0\xaf \xe2\x82"), "a\\x80z \\xc0\\xaf \\xe2\\x82");
  EXPECT_EQ(printableLine("\x7f"), "\\x7f");
  // Escaping is done once: a line already printable comes back the same.
  auto const once = printableLine("x\x01y\r\nz");
  EXPECT_EQ(once, "x\\x01y z");
  EXPECT_EQ(printableLine(once), once);

  Exception e("bad \x02 byte\nin file");
  e.addContext({{}, {}, {}, {}, "odd\nname.root"});
  EXPECT_EQ(e.message(), "bad \\x02 byte in file");
  EXPECT_STREQ(e.what(), "(file 'odd name.root'): bad \\x02 byte in file");
}

TEST(ExceptionTest, ForeignExceptionsAreWrapped) {
  auto error = withContext(std::make_exception_ptr(std::runtime_error("bad")), {"m", Transition::Acquire, {}, {}, {}});
  EXPECT_EQ(describe(error), "module 'm' (acquire): bad");
}

TEST(EventTest, TypedAccessChecksTypeAndPresence) {
  ProductRegistry registry;
  registry.add({"x", typeid(int), {}}, kSourceProducer, "the source");
  registry.add({"y", typeid(double), {}}, kSourceProducer, "the source");
  Event event(registry, 0);
  event.start({1, 1, 9});
  event.slotForWriting(0).emplace(5, 4);
  EXPECT_EQ(event.getByLabel<int>("x"), 5);
  EXPECT_EQ(event.size(0), 4u);
  try {
    event.getByLabel<double>("x");
    FAIL();
  } catch (Exception const& e) {
    EXPECT_EQ(std::string(e.what()), "product 'x' is a int, not a double");
  }
  try {
    event.getByLabel<double>("y");
    FAIL();
  } catch (Exception const& e) {
    EXPECT_EQ(std::string(e.what()), "product 'y' is missing from event 1:1:9");
  }
  EXPECT_THROW(event.getByLabel<int>("z"), Exception);
}

TEST(ProductSlotTest, OwnsLargeAndSmallObjectsAndBorrows) {
  ProductSlot slot;
  slot.emplace(std::vector<int>(1000, 3), 4000);
  EXPECT_EQ(static_cast<std::vector<int> const*>(slot.object())->size(), 1000u);
  auto big = std::string(100, 'x');
  slot.emplace(big, big.size());  // reset + heap storage
  EXPECT_EQ(*static_cast<std::string const*>(slot.object()), big);
  int cached = 7;
  slot.borrow(&cached, typeid(int), 4);
  EXPECT_EQ(slot.object(), &cached);
}

TEST(ProductSlotTest, AdoptedObjectsAreDestroyedThroughTheirContext) {
  struct Deleter {
    int destroyed = 0;
    static void destroy(void* object, void* context) {
      delete static_cast<double*>(object);
      ++static_cast<Deleter*>(context)->destroyed;
    }
  } deleter;
  {
    ProductSlot slot;
    slot.adopt(new double(2.5), typeid(double), 8, &Deleter::destroy, &deleter);
    EXPECT_EQ(slot.type(), typeid(double));
    EXPECT_EQ(*static_cast<double const*>(slot.object()), 2.5);
    slot.adopt(new double(1.0), typeid(double), 8, &Deleter::destroy, &deleter);  // replaces: destroys the first
    EXPECT_EQ(deleter.destroyed, 1);
  }
  EXPECT_EQ(deleter.destroyed, 2) << "the slot's end destroys the second";
}

// An event's slots are vacated, not reset, as its lane starts the next event:
// an object lent to one stays with it for its owner to reclaim, and anything
// else gives it back.
TEST(ProductSlotTest, AVacatedSlotKeepsALentObjectForItsOwnerOnly) {
  struct Owner {
    std::vector<int*> back;
    static void release(void* object, void* context) { static_cast<Owner*>(context)->back.push_back(static_cast<int*>(object)); }
  } owner, other;
  int first = 1, second = 2;
  {
    ProductSlot slot;
    slot.lend(&first, typeid(int), 4, &Owner::release, &owner);
    slot.vacate();
    EXPECT_FALSE(slot.filled());
    slot.vacate();  // an event that did not read the product: the spare stays
    EXPECT_TRUE(owner.back.empty());
    EXPECT_EQ(slot.reclaim(&Owner::release, &other), nullptr) << "another owner's";
    EXPECT_EQ(slot.reclaim(&Owner::release, &owner), &first);
    EXPECT_EQ(slot.reclaim(&Owner::release, &owner), nullptr) << "reclaimed once";
    EXPECT_TRUE(owner.back.empty()) << "a reclaimed object is not given back too";

    slot.lend(&second, typeid(int), 4, &Owner::release, &owner);
    slot.vacate();
    slot.emplace(3.5, 8);  // a product of another kind gives the spare back
    EXPECT_EQ(owner.back, std::vector<int*>{&second});
    slot.vacate();  // an owned product is destroyed as by reset()
    EXPECT_EQ(slot.reclaim(&Owner::release, &owner), nullptr);

    slot.lend(&first, typeid(int), 4, &Owner::release, &other);
    slot.vacate();
  }
  EXPECT_EQ(other.back, std::vector<int*>{&first}) << "the slot's end gives its spare back";
  EXPECT_EQ(owner.back.size(), 1u);
}

// trade: the owner's next object in, its spare back out, in one step.
TEST(ProductSlotTest, TradeSwapsTheOwnersSpareForItsNextObject) {
  struct Owner {
    std::vector<int*> back;
    static void release(void* object, void* context) { static_cast<Owner*>(context)->back.push_back(static_cast<int*>(object)); }
  } owner, other;
  int first = 1, second = 2, third = 3;
  {
    ProductSlot slot;
    EXPECT_EQ(slot.trade(&first, 4, &Owner::release, &owner), nullptr) << "an empty slot has no spare";
    EXPECT_FALSE(slot.filled()) << "and is left as it was";
    slot.lend(&first, typeid(int), 4, &Owner::release, &owner);
    slot.vacate();
    EXPECT_EQ(slot.trade(&second, 8, &Owner::release, &other), nullptr) << "another owner's";
    EXPECT_EQ(slot.trade(&second, 8, &Owner::release, &owner), &first);
    ASSERT_TRUE(slot.filled());
    EXPECT_EQ(slot.object(), &second);
    EXPECT_EQ(slot.type(), typeid(int));
    EXPECT_EQ(slot.bytes(), 8u);
    EXPECT_EQ(slot.trade(&third, 4, &Owner::release, &owner), nullptr) << "no spare while filled";
    EXPECT_EQ(slot.object(), &second);
    slot.vacate();
    EXPECT_EQ(slot.trade(&third, 4, &Owner::release, &owner), &second);
  }
  EXPECT_EQ(owner.back, std::vector<int*>{&third}) << "the slot's end gives back the object it traded for";
  EXPECT_TRUE(other.back.empty());
}

TEST(GlobMatchTest, StarsAndQuestionMarks) {
  EXPECT_TRUE(globMatch("Jet_*", "Jet_pt"));
  EXPECT_TRUE(globMatch("*_pt", "Muon_pt"));
  EXPECT_FALSE(globMatch("n?t", "nJet"));
  EXPECT_TRUE(globMatch("nJe?", "nJet"));
  EXPECT_FALSE(globMatch("Jet_*", "nJet"));
}

struct CountingWaiter final : detail::Waiter {
  std::atomic<int> notified{0};
  void notify() override { notified++; }
};

TEST(WaitingListTest, EveryWaiterIsNotifiedExactlyOnceUnderContention) {
  for (int round = 0; round < 50; ++round) {
    detail::WaitingList list;
    std::vector<CountingWaiter> waiters(64);
    std::atomic<int> wentOnAlone{0};
    tbb::global_control allowFour(tbb::global_control::max_allowed_parallelism, 4);  // real contention on 2 cores
    tbb::task_arena arena(4);
    arena.execute([&] {
      tbb::parallel_for(0, 65, detail::handedOver([&](int i) {  // handed over: for TSan (TbbHandOff.h)
        if (i == 32) return list.markDone();
        if (!list.add(&waiters[i < 32 ? i : i - 1])) wentOnAlone++;
      }, &list));
    });
    detail::joined(&list);
    int notified = 0;
    for (auto& w : waiters) {
      EXPECT_LE(w.notified.load(), 1);
      notified += w.notified.load();
    }
    EXPECT_EQ(notified + wentOnAlone.load(), 64);
    EXPECT_TRUE(list.isDone());
  }
}

TEST(WaitingListTest, AListMarkedDoneWithoutWaitersTakesNoneAfterwards) {
  detail::WaitingList list;
  list.markDoneWithoutWaiters();
  EXPECT_TRUE(list.isDone());
  CountingWaiter waiter;
  EXPECT_FALSE(list.add(&waiter));  // the adder goes on itself
  list.reset();
  EXPECT_FALSE(list.isDone());
  EXPECT_TRUE(list.add(&waiter));
  list.markDone();
  EXPECT_EQ(waiter.notified.load(), 1);
}

TEST(HoldCountTest, TheCallerThatGivesBackTheLastHoldGoesOn) {
  detail::HoldCount holds;
  holds.set(4);
  EXPECT_FALSE(holds.release());
  EXPECT_FALSE(holds.release(2));
  EXPECT_TRUE(holds.release());  // the last, given back without a locked instruction
  holds.set(3);
  EXPECT_TRUE(holds.release(3));  // all at once
}

// Exactly one thread goes on, and it sees what every other thread wrote
// before giving its holds back (TSan checks the order in its binary).
TEST(HoldCountTest, ExactlyOneThreadGoesOnUnderContention) {
  constexpr int kThreads = 16, kHoldsEach = 3;
  for (int round = 0; round < 100; ++round) {
    detail::HoldCount holds;
    holds.set(kThreads * kHoldsEach);
    std::vector<int> written(kThreads, 0);
    std::atomic<int> wentOn{0};
    int sawWritten = 0;
    tbb::global_control allowFour(tbb::global_control::max_allowed_parallelism, 4);  // real contention on 2 cores
    tbb::task_arena arena(4);
    arena.execute([&] {
      tbb::parallel_for(0, kThreads, detail::handedOver([&](int t) {  // handed over: for TSan (TbbHandOff.h)
        written[t] = t + 1;
        // One hold alone, then the other two together: both paths of release().
        bool const last = holds.release() || holds.release(kHoldsEach - 1);
        if (!last) return;
        wentOn++;
        for (int other = 0; other < kThreads; ++other) sawWritten += written[other] == other + 1;
      }, &holds));
    });
    detail::joined(&holds);
    EXPECT_EQ(wentOn.load(), 1);
    EXPECT_EQ(sawWritten, kThreads);
  }
}

TEST(LimitedTaskQueueTest, RespectsItsLimitAndRunsEverything) {
  for (unsigned limit : {1u, 2u, 3u}) {
    tbb::global_control allowFour(tbb::global_control::max_allowed_parallelism, 4);  // real contention on 2 cores
    tbb::task_arena arena(4);
    tbb::task_group group;
    LimitedTaskQueue queue(group, limit);
    OverlapProbe probe;
    std::atomic<int> thens{0};
    arena.execute([&] {
      tbb::parallel_for(0, 200, detail::handedOver([&](int) {  // handed over: for TSan (TbbHandOff.h)
        queue.push(
            [&] {
              probe.enter();
              spin(2000);
              probe.leave();
            },
            [&] { thens++; });
      }, &group));
      group.wait();
      detail::joined(&group);
    });
    EXPECT_EQ(probe.calls(), 200);
    EXPECT_EQ(thens.load(), 200);
    EXPECT_LE(probe.maxInside(), static_cast<int>(limit));
  }
}

// While items wait, the task that holds the slot runs their work itself, on
// its thread (what the work touches stays in that core's cache), and their
// continuations become tasks of their own.
TEST(LimitedTaskQueueTest, WaitingWorkRunsOnTheThreadThatHoldsTheSlot) {
  tbb::task_arena arena(2);
  tbb::task_group group;
  LimitedTaskQueue queue(group, 1);
  std::atomic<bool> pushed{false};
  std::thread::id workers[3];
  std::atomic<int> thens{0};
  arena.execute([&] {
    queue.push(
        [&] {
          workers[0] = std::this_thread::get_id();
          while (!pushed.load()) {
          }  // the next two wait in the queue before this work ends
        },
        [&] { thens++; });
    for (int i = 1; i < 3; ++i) queue.push([&, i] { workers[i] = std::this_thread::get_id(); }, [&] { thens++; });
    pushed = true;
    group.wait();
    detail::joined(&group);
  });
  EXPECT_EQ(workers[1], workers[0]);
  EXPECT_EQ(workers[2], workers[0]);
  EXPECT_EQ(thens.load(), 3);
}

// Continuations run in place only while they are short beside the
// serialised work; the decision follows the recent durations.
TEST(ContinuationPolicyTest, InPlaceWhileContinuationsAreUnderASixteenthOfTheWork) {
  using std::chrono::microseconds;
  ContinuationPolicy policy;
  EXPECT_FALSE(policy.inPlace());  // nothing seen yet
  policy.workTook(microseconds(320));
  EXPECT_FALSE(policy.inPlace());  // no continuation seen yet: the first goes to a task of its own
  for (int i = 0; i < 40; ++i) {
    policy.workTook(microseconds(320));   // a shared source's read
    policy.continuationTook(microseconds(10));  // a job that only counts events
  }
  EXPECT_TRUE(policy.inPlace());
  for (int i = 0; i < 40; ++i) policy.continuationTook(microseconds(30));  // over 1/16 of 320
  EXPECT_FALSE(policy.inPlace());
  for (int i = 0; i < 40; ++i) policy.continuationTook(microseconds(15));
  EXPECT_TRUE(policy.inPlace());
  for (int i = 0; i < 40; ++i) policy.workTook(microseconds(100));  // the reads got faster
  EXPECT_FALSE(policy.inPlace());
}

// A continuation that pushes to its own queue (a lane fetching its next
// event as its last step) has that item run on its thread once it returns,
// though another thread is idle to steal it: a chain of such pushes, a lane's
// events, stays on one thread, and each item starts after the continuation
// that pushed it has returned (no recursion).
TEST(LimitedTaskQueueTest, WhatAContinuationPushesRunsOnItsThreadAfterIt) {
  tbb::task_arena arena(2);
  tbb::task_group group;
  LimitedTaskQueue queue(group, 1);
  constexpr int kChain = 50;
  std::thread::id threads[kChain];
  std::atomic<int> inContinuation{0};
  std::atomic<int> startedInside{0};
  std::function<void(int)> link = [&](int i) {
    queue.push(
        [&, i] {
          if (inContinuation.load() != 0) startedInside++;
          threads[i] = std::this_thread::get_id();
        },
        [&, i] {
          inContinuation++;
          if (i + 1 < kChain) link(i + 1);
          spin(2000);  // time for the idle thread to steal a task, had one been made
          inContinuation--;
        });
  };
  arena.execute([&] {
    link(0);
    group.wait();
    detail::joined(&group);
  });
  EXPECT_EQ(startedInside.load(), 0);
  for (int i = 1; i < kChain; ++i) EXPECT_EQ(threads[i], threads[0]) << "item " << i;
}

}  // namespace
}  // namespace lanes::test
