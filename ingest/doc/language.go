package doc

// WindowsLanguage returns the ISO 639-1 code of a Windows language id (an
// LCID such as 1033, or only its primary language, 9), as RTF's \deflang
// and the MOBI header's locale give a language; "" for one it does not
// know. The region is left out: the id's sub-language is often a default
// that the document never chose.
func WindowsLanguage(lcid int) string {
	if lcid <= 0 {
		return ""
	}
	switch lcid & 0x3FF {
	case 0x01:
		return "ar"
	case 0x02:
		return "bg"
	case 0x03:
		return "ca"
	case 0x04:
		return "zh"
	case 0x05:
		return "cs"
	case 0x06:
		return "da"
	case 0x07:
		return "de"
	case 0x08:
		return "el"
	case 0x09:
		return "en"
	case 0x0A:
		return "es"
	case 0x0B:
		return "fi"
	case 0x0C:
		return "fr"
	case 0x0D:
		return "he"
	case 0x0E:
		return "hu"
	case 0x0F:
		return "is"
	case 0x10:
		return "it"
	case 0x11:
		return "ja"
	case 0x12:
		return "ko"
	case 0x13:
		return "nl"
	case 0x14:
		return "no"
	case 0x15:
		return "pl"
	case 0x16:
		return "pt"
	case 0x18:
		return "ro"
	case 0x19:
		return "ru"
	case 0x1A:
		return "hr"
	case 0x1B:
		return "sk"
	case 0x1D:
		return "sv"
	case 0x1E:
		return "th"
	case 0x1F:
		return "tr"
	case 0x22:
		return "uk"
	case 0x25:
		return "et"
	case 0x26:
		return "lv"
	case 0x27:
		return "lt"
	case 0x29:
		return "fa"
	case 0x2A:
		return "vi"
	case 0x39:
		return "hi"
	}
	return ""
}
