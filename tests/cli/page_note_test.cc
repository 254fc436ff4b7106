#include "cli/page_note.h"

#include <gtest/gtest.h>

#include <sstream>

namespace orrery::cli {
namespace {

// A count that fails the test when asked: pages that cannot have a rest.
Result<std::int64_t> never_asked() {
  ADD_FAILURE() << "counted a page that cannot be followed by more";
  return std::int64_t(0);
}

TEST(PageNote, OnlyAFullPageOrAnEmptyOneAtAnOffsetIsCounted) {
  for (int limit : {1, 2, 100}) {
    for (int shown = 0; shown < limit; ++shown) {
      auto page = listed_page(0, limit, std::size_t(shown), never_asked);
      ASSERT_TRUE(page);
      EXPECT_EQ(page->rest, 0);
    }
  }
  int asked = 0;
  auto counted = [&asked]() -> Result<std::int64_t> {
    ++asked;
    return std::int64_t(113);
  };
  auto full = listed_page(0, 100, 100, counted);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->rest, 13);
  auto past_the_end = listed_page(200, 100, 0, counted);
  ASSERT_TRUE(past_the_end);
  EXPECT_EQ(past_the_end->rest, 0);
  auto middle = listed_page(10, 100, 100, counted);
  ASSERT_TRUE(middle);
  EXPECT_EQ(middle->rest, 3);
  EXPECT_EQ(asked, 3);
}

TEST(PageNote, ACountThatFailsIsTheListingsError) {
  auto page = listed_page(
      0, 1, 1, []() -> Result<std::int64_t> { return internal_error("the store is gone"); });
  ASSERT_FALSE(page);
  EXPECT_EQ(page.error().message, "the store is gone");
}

TEST(PageNote, TheNextCommandKeepsTheFiltersQuotedAndALimitThatIsNotTheDefault) {
  ListedPage page{100, 100, 13};
  EXPECT_EQ(next_page_command("orrery items", 100, 100, page), "orrery items --offset 200");
  EXPECT_EQ(next_page_command("orrery items", 50, 100, page),
            "orrery items --limit 50 --offset 200");
  EXPECT_EQ(option_word("--project", ""), "");
  EXPECT_EQ(option_word("--project", "web"), " --project web");
  EXPECT_EQ(option_word("--project", "my web's"), " --project 'my web'\\''s'");
}

TEST(PageNote, PeopleSeeTheNoteProgramsGetItOnStderrOrAsTheNextOffset) {
  std::ostringstream out;
  Context context;
  context.out = &out;
  tell_rest(context, ListedPage{0, 2, 3}, "items", "orrery items --offset 2");
  EXPECT_EQ(out.str(), "3 more: orrery items --offset 2\n");

  out.str("");
  tell_rest(context, ListedPage{0, 2, 0}, "items", "orrery items --offset 2");
  EXPECT_EQ(out.str(), "");

  PageNote note;
  context.globals.json = true;
  context.page = &note;
  tell_rest(context, ListedPage{4, 2, 3}, "items", "orrery items --offset 6");
  EXPECT_EQ(out.str(), "");
  EXPECT_TRUE(note.more);
  EXPECT_EQ(note.next_offset, 6);
  tell_rest(context, ListedPage{4, 2, 0}, "items", "orrery items --offset 6");
  EXPECT_FALSE(note.more);
}

}  // namespace
}  // namespace orrery::cli
