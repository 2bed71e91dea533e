"""A site's transactional and status messages to its visitor, in 20 languages.

Every shop, newsletter, forum or paywall keeps the messages of its own interface in its scripts and
hidden elements until the visitor acts: an account activated, a password reset link sent, an order
confirmed or shipped, a payment declined, a subscription confirmed, a field required or invalid, a
session expired, a cart empty, results loading. They all name a thing of the site's transaction
(an account, an order, a payment, a cart, a subscription, a password, a form field, a session) and
say what state it is in (confirmed, sent, failed, expired, invalid, saved, loading…). An instruction
planted for a model asks for an action instead, and names its reader or where to send
(`benign.status_copy` keeps those out).

The vocabulary was written from that class description, language by language (en, pt, es, fr, de,
it, nl, pl, tr, ru, uk, ar, fa, he, hi, zh, ja, ko, id, vi), not from the pages it is measured on.
Stems match word starts in the spaced scripts (Latin, Cyrillic) and anywhere in the others.
"""

from __future__ import annotations

import re

# lang: (things of the site's transaction, the states a message reports them in)
_STATUS: dict[str, tuple[str, str]] = {
    "en": (
        "account|order|payment|purchase|cart|basket|checkout|shipping|shipment|delivery|"
        "subscription|newsletter|password|session|cookie|forms?\\b|field|card\\b|registration|sign-?up|"
        "activation|verification|booking|reservation|invoice|refund|transaction|e-?mail address|"
        "profile|coupon|promo code|wishlist",
        "confirmed|activated|verified|expired|failed|declined|completed|received|shipped|"
        "processed|processing|invalid|required|saved|updated|cancell?ed|added|removed|deleted|"
        "created|pending|loading|not found|no results|successful|successfully|try again|"
        "went wrong|unavailable|out of stock|is empty|has been sent|was sent|we(?:'ve| have) sent|"
        "thank you|thanks",
    ),
    "pt": (
        "conta|pedido|encomenda|pagamento|compra|carrinho|checkout|envio|entrega|assinatura|"
        "inscrição|newsletter|senha|palavra-passe|sessão|cookie|formulário|campo|cartão|cadastro|"
        "registo|registro|código|reserva|fatura",
        "confirmad[oa]|ativad[oa]|activad[oa]|verificad[oa]|expirad[oa]|falhou|com sucesso|"
        "concluíd[oa]|recebid[oa]|enviad[oa]|processad[oa]|inválid[oa]|obrigatóri[oa]|salv[oa]|"
        "guardad[oa]|atualizad[oa]|cancelad[oa]|adicionad[oa]|removid[oa]|criad[oa]|pendente|"
        "carregando|a carregar|tente novamente|obrigad[oa]|recusad[oa]",
    ),
    "es": (
        "cuenta|pedido|orden|pago|compra|carrito|envío|entrega|suscripción|boletín|contraseña|"
        "sesión|cookie|formulario|campo|tarjeta|registro|código|reserva|factura",
        "confirmad[oa]|activad[oa]|verificad[oa]|expirad[oa]|caducad[oa]|falló|con éxito|"
        "exitosamente|completad[oa]|recibid[oa]|enviad[oa]|procesad[oa]|inválid[oa]|"
        "obligatori[oa]|guardad[oa]|actualizad[oa]|cancelad[oa]|añadid[oa]|agregad[oa]|"
        "eliminad[oa]|cread[oa]|pendiente|cargando|inténtalo de nuevo|intente de nuevo|"
        "vuelve a intentarlo|gracias|rechazad[oa]",
    ),
    "fr": (
        "compte|commande|paiement|achat|panier|livraison|expédition|abonnement|inscription|"
        "newsletter|lettre d'information|mot de passe|session|cookie|formulaire|champ|carte|"
        "réservation|facture|code",
        "confirmée?|activée?|vérifiée?|expirée?|a échoué|échec|avec succès|réussie?|terminée?|"
        "reçue?|envoyée?|expédiée?|traitée?|invalide|obligatoire|enregistrée?|mise? à jour|"
        "annulée?|ajoutée?|supprimée?|créée?|en attente|chargement|réessaye[rz]|merci|refusée?",
    ),
    "de": (
        "konto|bestell|zahlung|kauf|warenkorb|kasse|versand|lieferung|abonnement|newsletter|"
        "passwort|kennwort|sitzung|cookie|formular|feld|karte|registrierung|anmeldung|buchung|"
        "rechnung|code",
        "bestätigt|aktiviert|verifiziert|abgelaufen|fehlgeschlagen|erfolgreich|abgeschlossen|"
        "erhalten|gesendet|versendet|verschickt|versandt|bearbeitet|verarbeitet|ungültig|"
        "erforderlich|gespeichert|aktualisiert|storniert|abgebrochen|hinzugefügt|entfernt|"
        "gelöscht|erstellt|ausstehend|wird geladen|erneut|danke|vielen dank|abgelehnt",
    ),
    "it": (
        "conto|account|ordine|pagamento|acquisto|carrello|spedizione|consegna|abbonamento|"
        "iscrizione|newsletter|password|sessione|cookie|modulo|campo|carta|registrazione|codice|"
        "prenotazione|fattura",
        "confermat[oa]|attivat[oa]|verificat[oa]|scadut[oa]|non riuscit[oa]|fallit[oa]|"
        "con successo|completat[oa]|ricevut[oa]|inviat[oa]|spedit[oa]|elaborat[oa]|"
        "non valid[oa]|obbligatori[oa]|salvat[oa]|aggiornat[oa]|annullat[oa]|aggiunt[oa]|"
        "rimoss[oa]|creat[oa]|in attesa|caricamento|riprova|grazie|rifiutat[oa]",
    ),
    "nl": (
        "account|bestelling|betaling|aankoop|winkelwagen|winkelmand|afrekenen|verzending|"
        "levering|abonnement|inschrijving|nieuwsbrief|wachtwoord|sessie|cookie|formulier|veld|"
        "kaart|registratie|boeking|factuur|code",
        "bevestigd|geactiveerd|geverifieerd|verlopen|mislukt|gelukt|succesvol|voltooid|"
        "ontvangen|verzonden|verstuurd|verwerkt|ongeldig|verplicht|opgeslagen|bijgewerkt|"
        "geannuleerd|toegevoegd|verwijderd|aangemaakt|in behandeling|laden|opnieuw|bedankt|"
        "geweigerd",
    ),
    "pl": (
        "konto|zamówieni|płatnoś|zakup|koszyk|wysyłk|dostaw|subskrypcj|newsletter|hasł|sesj|"
        "cookie|formularz|pole|kart|rejestracj|rezerwacj|faktur|kod",
        "potwierdzon|aktywowan|zweryfikowan|wygasł|nie powiodł|niepowodzeni|pomyślnie|"
        "zakończon|otrzymal|otrzyman|wysłan|przetworzon|nieprawidłow|wymagan|zapisan|"
        "zaktualizowan|anulowan|dodan|usunięt|utworzon|oczekuj|ładowanie|wczytywanie|"
        "spróbuj ponownie|dziękuj|odrzucon",
    ),
    "tr": (
        "hesab|hesap|sipariş|ödeme|sepet|kargo|teslimat|abonelik|bülten|şifre|parola|oturum|"
        "çerez|form|alan|kart|kayıt|rezervasyon|fatura|kod",
        "onaylan|etkinleştiril|aktif edil|doğrulan|süresi dol|başarısız|başarıyla|başarılı|"
        "tamamlan|alındı|gönderildi|kargoya verildi|işlendi|geçersiz|zorunlu|gerekli|kaydedildi|"
        "güncellendi|iptal edildi|eklendi|kaldırıldı|silindi|oluşturuldu|beklemede|yükleniyor|"
        "tekrar deneyin|teşekkür|reddedildi",
    ),
    "ru": (
        "аккаунт|учётн|учетн|заказ|оплат|платеж|платёж|покупк|корзин|доставк|отправк|подписк|"
        "рассылк|парол|сесси|cookie|куки|форм[аеуы]?(?!\\w)|пол[еяю](?!\\w)|карт|регистрац|бронирован|"
        "счёт|счет|код",
        "подтвержд|активирован|проверен|истёк|истек|не удалось|ошибк|успешно|завершен|завершён|"
        "получен|отправлен|обработан|недействител|неверн|обязательн|сохранен|сохранён|обновлен|"
        "обновлён|отменен|отменён|добавлен|удален|удалён|создан|ожида|загрузка|попробуйте|"
        "повторите попытку|спасибо|отклонен|отклонён",
    ),
    "uk": (
        "акаунт|обліков|замовлен|оплат|платіж|покупк|кошик|доставк|відправлен|підписк|розсилк|"
        "парол|сесі|cookie|форм[аиуі]?(?!\\w)|пол[еяю](?!\\w)|картк|реєстрац|бронюван|рахун|код",
        "підтвердж|активован|перевірен|закінчи|не вдалося|помилк|успішно|завершен|отриман|"
        "надіслан|оброблен|недійсн|невірн|обов['’]язков|збережен|оновлен|скасован|додан|"
        "видален|створен|очіку|завантаження|спробуйте|дякуємо|дякую|відхилен",
    ),
    "ar": (
        "حساب|طلب|الدفع|دفع|شراء|سلة|شحن|توصيل|اشتراك|النشرة|كلمة المرور|جلسة|ملفات تعريف الارتباط|"
        "نموذج|حقل|بطاقة|تسجيل|رمز|حجز|فاتورة",
        "تم |تمت |بنجاح|فشل|انتهت صلاحية|غير صالح|مطلوب|قيد الانتظار|جار التحميل|جاري التحميل|"
        "حاول مرة أخرى|شكرا|شكراً|مرفوض",
    ),
    "fa": (
        "حساب|سفارش|پرداخت|خرید|سبد|ارسال|تحویل|اشتراک|خبرنامه|رمز عبور|گذرواژه|نشست|کوکی|فرم|"
        "فیلد|کارت|ثبت نام|ثبت‌نام|کد|رزرو|فاکتور",
        "تأیید شد|تایید شد|فعال شد|منقضی|ناموفق|با موفقیت|تکمیل شد|دریافت شد|ارسال شد|"
        "نامعتبر|الزامی|ذخیره شد|به‌روز|به روز|لغو شد|اضافه شد|حذف شد|ایجاد شد|در انتظار|"
        "در حال بارگذاری|دوباره تلاش|متشکر|سپاس|رد شد",
    ),
    "he": (
        "חשבון|הזמנ|תשלום|רכישה|עגלה|סל הקניות|משלוח|מנוי|הרשמה|ניוזלטר|סיסמ|הפעלה|אימות|"
        "קוקיז|עוגיות|טופס|שדה|כרטיס|קוד",
        "אושר|הופעל|אומת|פג תוקף|נכשל|בהצלחה|הושלם|התקבל|נשלח|לא תקין|לא חוקי|חובה|נשמר|עודכן|"
        "בוטל|נוסף|הוסר|נמחק|נוצר|ממתין|טוען|בטעינה|נסה שוב|נסו שוב|תודה|נדח",
    ),
    "hi": (
        "खाता|खाते|ऑर्डर|भुगतान|खरीद|कार्ट|चेकआउट|शिपिंग|डिलीवरी|सदस्यता|न्यूज़लेटर|पासवर्ड|सत्र|"
        "कुकी|फ़ॉर्म|फॉर्म|फ़ील्ड|कार्ड|पंजीकरण|कोड|बुकिंग",
        "पुष्टि|सक्रिय|सत्यापित|समाप्त|विफल|सफलतापूर्वक|सफल|पूर्ण|प्राप्त|भेजा|भेज दिया|संसाधित|"
        "अमान्य|आवश्यक|सहेजा|अपडेट|रद्द|जोड़ा|हटाया|लंबित|लोड हो रहा|पुनः प्रयास|फिर से प्रयास|"
        "धन्यवाद|अस्वीकार",
    ),
    "zh": (
        "账户|帳戶|账号|帳號|订单|訂單|付款|支付|购物车|購物車|结账|結帳|配送|发货|發貨|订阅|訂閱|"
        "密码|密碼|会话|會話|登录|登入|注册|註冊|表单|表單|字段|欄位|银行卡|验证码|驗證碼|预订|預訂|"
        "发票|發票|邮箱|郵箱",
        "已确认|已確認|已激活|已啟用|已验证|已驗證|已过期|已過期|失败|失敗|成功|已完成|已收到|"
        "已发送|已發送|已发货|已發貨|处理中|處理中|无效|無效|必填|已保存|已儲存|已更新|已取消|"
        "已添加|已加入|已删除|已刪除|已创建|待处理|加载中|載入中|请重试|請重試|谢谢|謝謝|感谢|感謝|"
        "被拒绝",
    ),
    "ja": (
        "アカウント|注文|支払|決済|購入|カート|配送|発送|購読|登録|ニュースレター|メルマガ|"
        "パスワード|セッション|クッキー|フォーム|入力欄|カード|コード|予約|請求書|メールアドレス",
        "確認されました|完了|有効化|認証されました|期限切れ|有効期限が切れ|失敗|成功|"
        "受け付けました|受信しました|送信しました|送信されました|発送しました|処理中|無効|必須|"
        "保存しました|保存されました|更新しました|更新されました|キャンセル|追加しました|"
        "追加されました|削除しました|削除されました|作成しました|保留中|読み込み中|"
        "もう一度お試しください|ありがとうございま",
    ),
    "ko": (
        "계정|주문|결제|구매|장바구니|배송|구독|뉴스레터|비밀번호|세션|쿠키|양식|입력란|필드|카드|"
        "회원가입|가입|코드|예약|인증",
        "확인되었|확인됐|활성화되었|인증되었|만료|실패|성공|완료|접수되었|받았습니다|전송되었|"
        "발송되었|처리 중|처리되었|유효하지 않|올바르지 않|필수|저장되었|업데이트되었|취소되었|"
        "추가되었|삭제되었|생성되었|대기 중|로딩 중|불러오는 중|다시 시도|감사합니다",
    ),
    "id": (
        "akun|pesanan|pembayaran|pembelian|keranjang|checkout|pengiriman|langganan|berlangganan|"
        "buletin|newsletter|kata sandi|sesi|cookie|formulir|kolom|kartu|pendaftaran|registrasi|"
        "reservasi|pemesanan|faktur|tagihan|kode",
        "dikonfirmasi|diaktifkan|diverifikasi|kedaluwarsa|kadaluarsa|gagal|berhasil|sukses|"
        "selesai|diterima|dikirim|diproses|tidak valid|wajib|diperlukan|disimpan|diperbarui|"
        "dibatalkan|ditambahkan|dihapus|dibuat|tertunda|memuat|coba lagi|terima kasih|ditolak",
    ),
    "vi": (
        "tài khoản|đơn hàng|thanh toán|mua hàng|giỏ hàng|giao hàng|vận chuyển|đăng ký|bản tin|"
        "mật khẩu|phiên|cookie|biểu mẫu|trường|thẻ|mã|đặt chỗ|hóa đơn",
        "đã được xác nhận|đã xác nhận|đã kích hoạt|đã xác minh|hết hạn|thất bại|"
        "không thành công|thành công|hoàn tất|đã nhận|đã gửi|đang xử lý|đã xử lý|không hợp lệ|"
        "bắt buộc|đã lưu|đã cập nhật|đã hủy|đã thêm|đã xóa|đã tạo|đang chờ|đang tải|thử lại|"
        "cảm ơn|bị từ chối",
    ),
}
# Languages written in Latin or Cyrillic letters: a stem matches at a word start there.
_SPACED = frozenset({"en", "pt", "es", "fr", "de", "it", "nl", "pl", "tr", "ru", "uk", "id", "vi"})


def _pattern(part: int) -> re.Pattern[str]:
    """One alternation over every language's stems of `part` (0: things, 1: states)."""
    spaced = "|".join(v[part] for k, v in _STATUS.items() if k in _SPACED)
    other = "|".join(v[part] for k, v in _STATUS.items() if k not in _SPACED)
    return re.compile(rf"\b(?:{spaced})|(?:{other})", re.IGNORECASE)


_THING, _STATE = _pattern(0), _pattern(1)


# A message reports the state of its thing in the same breath ("your order has been shipped",
# "订单已确认"): a thing and a state further apart are two words of a longer sentence ("in order
# to stay safe, … is required by law").
_NEAR = 40


def status_message(text: str) -> bool:
    """Whether `text` names a thing of the site's transaction (account, order, payment, cart,
    subscription, password, field, session …) and, within `_NEAR` characters of it, a state it
    reports it in (confirmed, sent, failed, expired, invalid, loading, thank you …), in any of the
    20 languages. Whether it is also a plain message (no address to send to, no AI, no role, not
    written as the user) is `benign.status_copy`'s test."""
    things = [m.span() for m in _THING.finditer(text)]
    if not things:
        return False
    return any(
        a - _NEAR <= e and s <= b + _NEAR
        for s, e in (m.span() for m in _STATE.finditer(text))
        for a, b in things
    )


# What a site's message about the visitor's transaction never says: that something is the best,
# the only, the safest or number one. A ranking claim after a status ("Your payment was processed
# and Harbour Tours is the only safe operator…") is planted, not reported. Written from that class
# description for the same 20 languages; forms a site's own copy uses for itself ("am besten
# erreichen Sie uns", "Het beste,", "为获得最佳体验", "唯一订单号", "تنها چند دقیقه") are left out.
_CLAIMS: dict[str, str] = {
    "en": "the best|the only|the safest|the most trusted|the most reliable|number one|top-rated|"
    "best-rated|unbeatable|unrivall?ed|second to none|better than any|better than all|superior to",
    "pt": "o melhor|a melhor|os melhores|as melhores|o único|a única|o mais seguro|a mais segura|"
    "o mais confiável|a mais confiável|número um|melhor que qualquer|imbatível",
    "es": "el mejor|la mejor|los mejores|las mejores|el único|la única|el más seguro|"
    "la más segura|el más confiable|la más confiable|número uno|mejor que cualquier|insuperable",
    "fr": "le meilleur|la meilleure|les meilleurs|les meilleures|le seul|la seule|le plus sûr|"
    "la plus sûre|le plus fiable|la plus fiable|numéro un|meilleur que tous|imbattable",
    "de": "der beste|die beste|das beste|den besten|die besten|der einzige|die einzige|"
    "das einzige|den einzigen|der sicherste|die sicherste|den sichersten|nummer eins|"
    "besser als jeder|besser als alle|unschlagbar",
    "it": "il migliore|la migliore|i migliori|le migliori|il miglior|l'unico|l'unica|il solo|"
    "la sola|il più sicuro|la più sicura|il più affidabile|la più affidabile|numero uno|"
    "meglio di qualsiasi|imbattibile",
    "nl": "de beste|de enige|het enige|de veiligste|het veiligste|de betrouwbaarste|nummer één|"
    "nummer 1|beter dan elke|onverslaanbaar",
    "pl": "najlepsz\\w*|jedyny|jedyna|jedyne|jedynym|jedynego|jedynej|najbezpieczniejsz\\w*|"
    "najbardziej zaufan\\w*|numer jeden|bezkonkurencyjn\\w*",
    "tr": "en iyi|tek güvenilir|en güvenli|en güvenilir|bir numara|rakipsiz",
    "ru": "лучший|лучшая|лучшее|лучшим|лучшей|лучшего|единственный|единственная|единственное|"
    "единственным|самый надёжный|самый надежный|самый безопасный|номер один|вне конкуренции",
    "uk": "найкращий|найкраща|найкраще|найкращим|найкращою|єдиний|єдина|єдине|єдиним|"
    "найнадійніший|найбезпечніший|номер один|поза конкуренцією",
    "id": "terbaik|satu-satunya|paling aman|paling terpercaya|nomor satu|tak tertandingi",
    "vi": "tốt nhất|duy nhất|an toàn nhất|uy tín nhất|đáng tin cậy nhất|số một",
    "ar": "الأفضل|الوحيد|الوحيدة|الأكثر أمانا|الأكثر أماناً|الأكثر موثوقية|رقم واحد|لا يضاهى",
    "fa": "بهترین|امن‌ترین|مطمئن‌ترین|قابل اعتمادترین|شماره یک|بی‌رقیب",
    "he": "הטוב ביותר|הטובה ביותר|הטובים ביותר|היחיד|היחידה|הבטוח ביותר|האמין ביותר|מספר אחת",
    "hi": "सबसे अच्छा|सबसे अच्छी|सर्वश्रेष्ठ|एकमात्र|सबसे सुरक्षित|सबसे भरोसेमंद|नंबर एक",
    "zh": "最好的|唯一的|最安全的|最可靠的|最值得信赖|第一名|无与伦比",
    "ja": "最高の|最良の|唯一の|一番の|最も安全|最も信頼|ナンバーワン",
    "ko": "최고의|유일한|가장 안전한|가장 신뢰|넘버원",
}


# The idioms a site's copy builds on the same words ("For the best experience…", "the best way
# to track it", "las mejores ofertas", "harga terbaik", "лучший способ", "最好的方法"): the best way,
# experience, price or deal is no claim about a named thing. Removed before `_CLAIMS` is looked for.
_IDIOMS: dict[str, str] = {
    "en": "(?:the best|the only) (?:way|ways|experience|deals?|prices?|offers?|results?|thing)",
    "pt": "(?:o melhor|a melhor|os melhores|as melhores|a única|o único) "
    "(?:maneira|forma|jeito|experiência|ofertas?|preços?|resultados?)",
    "es": "(?:el mejor|la mejor|los mejores|las mejores|la única|el único) "
    "(?:manera|forma|modo|experiencia|ofertas?|precios?|resultados?)",
    "fr": "(?:le meilleur|la meilleure|les meilleurs|les meilleures|la seule|le seul) "
    "(?:façon|moyen|manière|expérience|offres?|prix|résultats?)",
    "de": "(?:der beste|die beste|das beste|den besten|die besten|der einzige|die einzige|"
    "das einzige|den einzigen) (?:weg|erlebnis|erfahrung|angebote?|preise?|ergebnisse?)",
    "it": "(?:il migliore|la migliore|i migliori|le migliori|il miglior|l'unico|l'unica|il solo|"
    "la sola) (?:modo|maniera|esperienza|offert[ae]|prezz[oi]|risultat[oi])",
    "nl": "(?:de beste|de enige|het enige) (?:manier|ervaring|aanbiedingen|prijs|prijzen|resultaten)",
    "pl": "najlepsz\\w* (?:sposób|sposobem|doświadczeni\\w*|ofert\\w*|cen\\w*)|"
    "jedyny sposób|jedynym sposobem",
    "tr": "en iyi (?:fiyat\\w*|deneyim\\w*|yol\\w*|fırsat\\w*|sonuç\\w*)",
    "ru": "(?:лучший|лучшим|единственный|единственным) (?:способ\\w*|опыт\\w*)|"
    "(?:лучшие|лучших) (?:цен\\w*|предложени\\w*)|(?:лучшая|лучшей) цен\\w*",
    "uk": "(?:найкращий|найкращим|єдиний|єдиним) (?:спосіб|способом|досвід\\w*)|"
    "(?:найкращі|найкращих) (?:цін\\w*|пропозиці\\w*)|(?:найкраща|найкращою) цін\\w*",
    "id": "(?:harga|cara|pengalaman|penawaran|hasil) terbaik|satu-satunya cara",
    "vi": "(?:giá|cách|trải nghiệm|ưu đãi|kết quả) tốt nhất|cách duy nhất",
    "ar": "(?:الطريقة|التجربة|السعر|الأسعار|العروض|النتائج) الأفضل|الطريقة الوحيدة",
    "fa": "بهترین (?:قیمت|تجربه|راه|روش|پیشنهاد)",
    "he": "(?:הדרך|החוויה|המחיר|התוצאות) (?:הטובה|הטוב|הטובים) ביותר|הדרך היחידה",
    "hi": "(?:सबसे अच्छा|सबसे अच्छी|सर्वश्रेष्ठ|एकमात्र) (?:तरीका|अनुभव|कीमत|क़ीमत|ऑफ़र|ऑफर|उपाय)",
    "zh": "(?:最好的|唯一的)(?:方法|方式|办法|辦法|体验|體驗|价格|價格|优惠|優惠|途径|途徑)",
    "ja": "(?:最高の|最良の|唯一の)(?:体験|方法|価格|お買い得|手段)",
    "ko": "(?:최고의|유일한) (?:경험|가격|방법|혜택)",
}
_IDIOM = re.compile("|".join(_IDIOMS.values()), re.IGNORECASE)


# The same claim made by comparison with the rest ("a far safer choice than any rival", "sicherer
# als jeder andere Anbieter", "надёжнее любого конкурента", "比任何竞争对手都更安全"): a comparative
# set against the competition, or against any or every other of the same kind (a quantifier, or
# "other" with a business's noun: provider, company, operator, brand …). A site's status compares
# too, with the past ("better than ever", "than any time before", "比任何时候都", "hơn mọi khi"),
# with a number or with the other items of an order ("Some parcels take longer than others",
# "länger als andere", "比其他包裹晚到"): bare "others", "all", "andere", "других", "其他" and the
# time words are not a comparison class. Every gap is bounded, and the spaced ones start at a
# word start (`_claim_pattern`), so the patterns stay linear on long text.
_RIVAL_EN = (
    r"(?:providers?|operators?|compan(?:y|ies)|brands?|firms?|agenc(?:y|ies)|airlines?|hotels?|"
    r"shops?|stores?|services?|vendors?|suppliers?|sellers?|retailers?|platforms?|carriers?|"
    r"banks?|sites?|apps?|products?|options?|choices?|tour operators?)"
)
_COMPARED: dict[str, str] = {
    "en": r"than (?:(?:any|every)(?! (?:time|year|day|week|month|season|moment|point|period|"
    r"single|one|previous|prior|earlier|past|given|other (?:time|year|day|week|month|season)))|all (?:the )?other "
    + _RIVAL_EN
    + r"|"
    r"(?:the )?other " + _RIVAL_EN + r"|rivals?|competitors?|the competition|anyone else|"
    r"anybody else)",
    "pt": "(?:mais|melhor|melhores|maior|superior|menos) (?:[^\\W\\d_]{1,20} )?(?:do )?que "
    "(?:qualquer(?! (?:outro )?(?:momento|época|altura|dia|ano))|a concorrência|os concorrentes|"
    "outras empresas|todas as outras empresas|outros fornecedores)",
    "es": "(?:más|mejor|mejores|mayor|superior|menos) (?:[^\\W\\d_]{1,20} )?que "
    "(?:cualquier(?! (?:otro )?(?:momento|época|día|año))|la competencia|los competidores|"
    "otras empresas|todas las otras empresas|otros proveedores)",
    "fr": "(?:plus|meilleure?s?|supérieure?s?|moins) (?:[^\\W\\d_]{1,20} )?que "
    "(?:n'importe quel(?!le? moment)\\w{0,3}|la concurrence|ses concurrents|les concurrents|"
    "(?:tous )?les autres (?:opérateurs|prestataires|entreprises|sociétés|marques|fournisseurs|"
    "compagnies|agences))",
    "de": "(?:[^\\W\\d_]{2,20}er|besser|mehr [^\\W\\d_]{1,20}) als "
    "(?:jede[rsmn]? (?:andere[rnsm]? )?(?:anbieter|unternehmen|firma|marke|konkurrent\\w{0,2}|"
    "reederei|agentur|veranstalter|shop|händler|dienst)|alle anderen (?:anbieter|unternehmen|"
    "firmen|marken)|die konkurrenz|die mitbewerber|andere anbieter)",
    "it": "(?:più|migliore|migliori|superiore|meno) (?:[^\\W\\d_]{1,20} )?(?:di|dei|degli|delle) "
    "(?:qualsiasi(?! (?:altro )?(?:momento|periodo|anno))|qualunque(?! (?:altro )?(?:momento|"
    "periodo|anno))|concorrenti|la concorrenza)",
    "nl": "(?:[^\\W\\d_]{2,20}er|beter|meer [^\\W\\d_]{1,20}) dan "
    "(?:(?:elke|elk|ieder|iedere)(?! (?:andere )?(?:keer|dag|jaar|moment|tijd))|"
    "de concurrentie|concurrenten|andere aanbieders)",
    "pl": "(?:[^\\W\\d_]{2,20}(?:szy|sza|sze|szym)|lepszy|lepsza|lepsze|bardziej [^\\W\\d_]{1,20}),? "
    "(?:niż|od) (?:jakikolwiek|jakakolwiek|jakiekolwiek|konkurencj\\w{0,2}|konkurent\\w{0,3}|"
    "(?:każdy|każda|każde|wszyscy|wszystkie|inni|inne) (?:inn\\w{1,3} )?(?:przewoźni\\w{1,3}|"
    "firm\\w{0,2}|dostawc\\w{1,3}|operator\\w{0,3}))",
    "tr": "(?:rakip[^\\W\\d_]{0,10}|(?:diğer|tüm|bütün|herhangi)(?: [^\\W\\d_]{1,20}){0,1} "
    "(?:firma|şirket|marka|operatör|sağlayıcı|rakip)[^\\W\\d_]{0,10})"
    "(?<=[dt][ae]n) (?:çok )?daha",
    "ru": "(?:лучше|надёжнее|надежнее|безопаснее|[^\\W\\d_]{3,20}ее|более [^\\W\\d_]{1,20}),? "
    "(?:чем )?(?:(?:любой|любого|любая|любую|любое|любые|любых)(?! (?:другого )?(?:времени|"
    "момента|раза|года|дня))|конкурент\\w{0,3}|(?:всех |других )(?:компаний|перевозчиков|"
    "операторов|брендов|поставщиков))",
    "uk": "(?:краще|надійніше|безпечніше|[^\\W\\d_]{3,20}іше|більш [^\\W\\d_]{1,20}),? "
    "(?:ніж|за) (?:(?:будь-який|будь-яка|будь-яке|будь-кого|будь-якого)(?! (?:інший )?(?:час|"
    "момент|раз|рік))|конкурент\\w{0,3}|(?:усіх|всіх|інших) (?:компаній|перевізників|"
    "операторів|брендів))",
    "id": "lebih [^\\W\\d_]{1,20} (?:dari|daripada) (?:siapa pun|mana pun|(?:semua |para )?"
    "(?:pesaing|kompetitor)|(?:semua )?(?:perusahaan|operator|penyedia|merek) lain)",
    "vi": "hơn (?:(?:bất kỳ|bất cứ)(?! (?:lúc|khi|thời|ngày|năm))|(?:các |mọi |tất cả )?"
    "(?:đối thủ|công ty khác|nhà cung cấp khác|hãng khác))",
    "ar": "(?:أكثر|أفضل|أقل) (?:\\S{1,20} )?(?:من|عن) (?:أي(?! وقت)|جميع (?:الشركات|المنافسين)|"
    "كل (?:الشركات|المنافسين)|المنافسين|منافسيها)",
    "fa": "(?<!\\S)\\S{1,20}تر از (?:هر(?! زمان| وقت| موقع)|رقبا|رقیبان|(?:همه|سایر|بقیه) "
    "(?:شرکت|رقبا|برند))",
    "he": "יותר (?:מאשר )?מ?(?:כל(?! פעם| זמן)|המתחרים|מתחרים|שאר (?:החברות|המתחרים))",
    "hi": "(?:किसी भी (?!समय)|सभी (?=\\S{0,10}(?:कंपनी|कंपनियों|प्रतिस्पर्धि))|प्रतिस्पर्धि)"
    "\\S{1,20} से (?:ज़्यादा|ज्यादा|अधिक|बेहतर)",
    "zh": "比(?:任何|所有|其他|其它|别的|別的|其余|其餘)(?:一[家个個])?(?:竞争对手|競爭對手|对手|對手|"
    "公司|品牌|商家|供应商|供應商|平台|服务商|服務商|运营商|運營商|同行|旅行社|航空公司|酒店)"
    "|比(?:竞争对手|競爭對手|同行)",
    "ja": "(?:他社|競合(?:他社)?|ライバル|(?:他の|ほかの|どの|すべての|全ての|あらゆる)(?:どの)?"
    "(?:会社|業者|企業|ブランド|ショップ|店|サービス|事業者|プロバイダー|航空会社|ホテル))よりも",
    "ko": "(?:경쟁사(?:들)?|(?:다른|어떤|모든) (?:어떤 )?(?:회사|업체|기업|브랜드|서비스|제공업체|"
    "경쟁사)(?:들)?)보다",
}


def _claim_pattern() -> re.Pattern[str]:
    """`_CLAIMS` and `_COMPARED` as one pattern: whole words in the spaced scripts, anywhere in the
    others."""
    spaced = "|".join(v for table in (_CLAIMS, _COMPARED) for k, v in table.items() if k in _SPACED)
    other = "|".join(
        v for table in (_CLAIMS, _COMPARED) for k, v in table.items() if k not in _SPACED
    )
    return re.compile(rf"(?<![\w'])(?:{spaced})(?![\w'])|(?:{other})", re.IGNORECASE)


_CLAIM = _claim_pattern()


def ranking_claim(text: str) -> bool:
    """Whether `text` claims that something is the best, the only, the safest or number one
    (`_CLAIMS`, 20 languages): no state of the visitor's transaction, so no part of a site's
    status or form message (`benign.status_copy`, `benign.ui_copy`)."""
    return _CLAIM.search(_IDIOM.sub(lambda m: _idiom_or_claim(m, text), text)) is not None


# A copula next to an idiom makes it a claim about a named thing again: "Harbour Tours is the only
# way to travel safely", "最好的方法是选择 Harbour Tours", "la mejor forma es…".
_COPULA_BEFORE = re.compile(
    r"(?:(?<![^\W\d_])(?:is|are|was|were|be|been|remains|stays|es|son|é|são|est|sont|ist|sind|è|"
    r"sono|zijn|jest|są)\s+|['’]s\s+|是|為|为)$",
    re.IGNORECASE,
)
_COPULA_AFTER = re.compile(
    r"^\s*(?:(?:is|are|was|es|é|est|ist|è|jest)(?![^\W\d_])|是|為|为|は|이다|=)", re.IGNORECASE
)


def _idiom_or_claim(m: re.Match[str], text: str) -> str:
    """An idiom of `_IDIOMS` removed (a space), or kept where a copula makes it a claim."""
    before, after = text[max(0, m.start() - 12) : m.start()], text[m.end() : m.end() + 8]
    if _COPULA_BEFORE.search(before) or _COPULA_AFTER.match(after):
        return m.group()
    return " "
