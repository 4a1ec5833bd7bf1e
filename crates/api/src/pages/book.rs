//! Chapters of the book (`docs/src`) as pages of the site: `/getting-started`,
//! `/benchmarks` and `/rent` render the same markdown the book is built from (compiled in:
//! one text, never a copy), inside the site's frame. The book's `{{#include}}`s of the
//! README are expanded as mdBook does; its links to these chapters become the site's pages,
//! links to the rest of the book keep their words without a link (the site does not serve
//! the book), and raw HTML is shown as text. The chapters are written in English: in
//! Traditional Chinese the frame is translated and the page says its text is not yet.

use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use app::limits::RateClass;

use super::Page;
use super::i18n::Labels;
use super::{Frame, respond};

/// A chapter the site shows: its page, its file under `docs/src`, its text and its name in
/// the navigation.
struct Chapter {
    path: &'static str,
    file: &'static str,
    text: &'static str,
    title: fn(&Labels) -> &'static str,
}

static CHAPTERS: [Chapter; 3] = [
    Chapter {
        path: "/getting-started",
        file: "getting-started.md",
        text: include_str!("../../../../docs/src/getting-started.md"),
        title: |l| l.nav_getting_started,
    },
    Chapter {
        path: "/benchmarks",
        file: "benchmark/standard.md",
        text: include_str!("../../../../docs/src/benchmark/standard.md"),
        title: |l| l.nav_benchmarks,
    },
    Chapter {
        path: "/rent",
        file: "marketplace/bookings.md",
        text: include_str!("../../../../docs/src/marketplace/bookings.md"),
        title: |l| l.nav_rent,
    },
];

/// What the chapters include from (`{{#include ../../README.md:anchor}}`).
const README: &str = include_str!("../../../../README.md");

/// The chapters' pages.
pub fn pages() -> Vec<Page> {
    CHAPTERS
        .iter()
        .map(|chapter| {
            Page::get(
                chapter.path,
                Some(RateClass::Reads),
                move |req: HttpRequest| chapter_page(req, chapter),
            )
        })
        .collect()
}

#[derive(Template)]
#[template(path = "book.html")]
struct BookPage {
    frame: Frame,
    html: String,
    file: &'static str,
    untranslated: bool,
}

async fn chapter_page(req: HttpRequest, chapter: &'static Chapter) -> HttpResponse {
    respond(&req, async {
        let mut frame = Frame::new(&req, String::new());
        let untranslated = frame.lang != "en";
        frame.title = if untranslated {
            (chapter.title)(frame.l).to_owned()
        } else {
            heading(chapter.text).unwrap_or_else(|| (chapter.title)(frame.l).to_owned())
        };
        let html = render(&expand_includes(chapter.text), chapter.file, |p| {
            frame.link(p)
        });
        let lang = frame.lang;
        Ok((
            BookPage {
                frame,
                html,
                file: chapter.file,
                untranslated,
            },
            lang,
        ))
    })
    .await
}

/// The chapter's first heading.
fn heading(markdown: &str) -> Option<String> {
    markdown
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|h| h.trim().to_owned())
}

/// The README's part between `<!-- ANCHOR: name -->` and `<!-- ANCHOR_END: name -->`.
fn anchored(text: &str, name: &str) -> Option<String> {
    let start = format!("<!-- ANCHOR: {name} -->");
    let end = format!("<!-- ANCHOR_END: {name} -->");
    let (_, rest) = text.split_once(&start)?;
    let (part, _) = rest.split_once(&end)?;
    Some(part.trim_matches('\n').to_owned())
}

/// Expands `{{#include ../…/README.md[:anchor]}}` lines with the README (the only file the
/// shown chapters include; anything else is left as it is, and the tests fail on it).
fn expand_includes(markdown: &str) -> String {
    markdown
        .lines()
        .map(|line| {
            let included = line
                .trim()
                .strip_prefix("{{#include ")
                .and_then(|rest| rest.strip_suffix("}}"))
                .and_then(|target| {
                    let (file, anchor) = target.split_once(':').unwrap_or((target, ""));
                    if !file.ends_with("/README.md") {
                        return None;
                    }
                    if anchor.is_empty() {
                        Some(README.to_owned())
                    } else {
                        anchored(README, anchor)
                    }
                });
            included.unwrap_or_else(|| line.to_owned())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A link's target in the book, `dir/file.md#fragment`, resolved against the chapter's
/// folder: `None` when it leaves the book.
fn book_target(from_file: &str, href: &str) -> Option<String> {
    let mut parts: Vec<&str> = from_file.split('/').collect();
    parts.pop();
    for part in href.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// Where a link of the chapter `file` goes on the site: external and site-absolute links as
/// they are, a chapter the site shows as its page; `None` for the rest of the book.
fn site_target(file: &str, href: &str, link: &impl Fn(&str) -> String) -> Option<String> {
    if href.contains("://") || href.starts_with("mailto:") || href.starts_with('/') {
        return Some(href.to_owned());
    }
    if let Some(fragment) = href.strip_prefix('#') {
        return Some(format!("#{fragment}"));
    }
    let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
    let target = book_target(file, path)?;
    let chapter = CHAPTERS.iter().find(|c| c.file == target)?;
    let page = link(chapter.path);
    Some(if fragment.is_empty() {
        page
    } else {
        format!("{page}#{fragment}")
    })
}

/// The chapter as HTML: markdown with tables, links rewritten for the site (`link` keeps
/// the page's language), raw HTML and images as text.
fn render(markdown: &str, file: &str, link: impl Fn(&str) -> String) -> String {
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES);
    // Per open link: whether it was kept.
    let mut links: Vec<bool> = Vec::new();
    let mut in_image = 0usize;
    let events = parser.filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => {
            // A comment (the README's anchors) is nothing to show.
            (!raw.trim_start().starts_with("<!--")).then_some(Event::Text(raw))
        }
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => match site_target(file, &dest_url, &link) {
            Some(target) => {
                links.push(true);
                Some(Event::Start(Tag::Link {
                    link_type,
                    dest_url: CowStr::from(target),
                    title,
                    id,
                }))
            }
            None => {
                links.push(false);
                None
            }
        },
        Event::End(TagEnd::Link) => links.pop().unwrap_or(false).then_some(event),
        // Aligned columns would be inline styles, which the pages' policy refuses.
        Event::Start(Tag::Table(columns)) => Some(Event::Start(Tag::Table(vec![
            pulldown_cmark::Alignment::None;
            columns.len()
        ]))),
        Event::Start(Tag::Image { .. }) => {
            in_image += 1;
            None
        }
        Event::End(TagEnd::Image) => {
            in_image = in_image.saturating_sub(1);
            None
        }
        other => Some(other),
    });
    let mut events: Vec<Event> = events.collect();
    // Headings get mdBook's ids, so the book's `#fragment` links land here too.
    for i in 0..events.len() {
        if let Event::Start(Tag::Heading { .. }) = &events[i] {
            let mut text = String::new();
            for e in &events[i + 1..] {
                match e {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    _ => {}
                }
            }
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(CowStr::from(slug(&text)));
            }
        }
    }
    let mut html = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// A heading's id as mdBook makes it: lower case, spaces as `-`, only letters, digits, `-`
/// and `_` kept.
fn slug(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(chapter: &Chapter) -> String {
        render(&expand_includes(chapter.text), chapter.file, |p| {
            format!("{p}?lang=zh-Hant")
        })
    }

    #[test]
    fn every_chapter_renders_with_its_includes_expanded() {
        for chapter in &CHAPTERS {
            let html = rendered(chapter);
            assert!(!html.contains("{{#"), "{}: an include left", chapter.file);
            assert!(html.starts_with("<h1 id="), "{}", chapter.file);
            assert!(!html.contains("<!--"), "{}", chapter.file);
            // Every link leaves the site or is one of its pages: none into the unserved book.
            for href in html.split("href=\"").skip(1) {
                let href = &href[..href.find('"').unwrap()];
                assert!(
                    href.starts_with("http")
                        || href.starts_with('#')
                        || CHAPTERS.iter().any(|c| href.starts_with(c.path))
                        || href.starts_with("/docs/"),
                    "{}: {href}",
                    chapter.file
                );
            }
        }
        // The README's demo commands are in the getting-started page.
        assert!(rendered(&CHAPTERS[0]).contains("serve --demo"));
    }

    #[test]
    fn links_follow_the_site_and_raw_html_is_text() {
        let html = render(
            "# T\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\nSee [the standard](../benchmark/standard.md#the-matrix), \
             [errors](../api/errors.md), [out](https://example.com/x) and [up](#t).\n\n\
             <script>alert(1)</script>\n\n![a picture](pic.png)\n",
            "marketplace/bookings.md",
            |p| format!("{p}?lang=en"),
        );
        assert!(
            html.contains("<a href=\"/benchmarks?lang=en#the-matrix\">the standard</a>"),
            "{html}"
        );
        assert!(
            html.contains("errors,") && !html.contains("errors.md"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"https://example.com/x\">out</a>"),
            "{html}"
        );
        assert!(html.contains("<a href=\"#t\">up</a>"), "{html}");
        assert!(html.contains("<h1 id=\"t\">T</h1>"), "{html}");
        assert!(
            html.contains("<td>2</td>") && !html.contains("style="),
            "{html}"
        );
        assert_eq!(slug("What a cell reports"), "what-a-cell-reports");
        assert_eq!(slug("`gpumarket bench` and K"), "gpumarket-bench-and-k");
        assert!(
            html.contains("&lt;script&gt;") && !html.contains("<script>"),
            "{html}"
        );
        assert!(
            !html.contains("<img") && html.contains("a picture"),
            "{html}"
        );
        assert_eq!(book_target("a/b.md", "../../x.md"), None);
        assert_eq!(
            book_target("getting-started.md", "trust/x.md").as_deref(),
            Some("trust/x.md")
        );
    }
}
